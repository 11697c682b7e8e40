/// The bash completion script. It needs nothing but bash (not bash-completion): the line is
/// read from `COMP_LINE`, so account names with `:` and `@` are read whole whatever
/// `COMP_WORDBREAKS` holds, and the candidates are cut to what readline replaces.
enum BashCompletion {
    static func render(_ model: CompletionModel) -> String {
        lookups(model) + "\n\n" + readLine(model) + "\n" + answer(model) + "\n\n" + subcommands(model)
    }

    /// Resolving the command words, and asking for the accounts.
    private static func lookups(_ model: CompletionModel) -> String {
        return #"""
            # bash completion for gitbay-sync, as printed by `gitbay-sync completions bash`.

            \#(BashCompletion.resolveFunction(model))

            _gitbay_sync_accounts() {
                command gitbay-sync "$@" accounts --json 2>/dev/null \
                    | grep -oE '"account": *"([^"\\]|\\.)*"' | sed -E 's/^"account": *"//; s/"$//; s/\\(.)/\1/g'
            }
            """#
    }

    /// The completion function, first half: the words typed so far, and option values.
    private static func readLine(_ model: CompletionModel) -> String {
        return #"""
            _gitbay_sync() {
                local line="${COMP_LINE:0:COMP_POINT}"
                local cur="${line##*[[:space:]]}"
                local -a tokens words=() db=() reply=()
                read -r -a tokens <<< "${line%"$cur"}"
                local i=1 token prev="${tokens[${#tokens[@]}-1]}"
                while ((i < ${#tokens[@]})); do
                    token="${tokens[i]}"
                    i=$((i + 1))
                    case "$token" in
                        \#(alternatives(model.fileOptions.map(q)))) db=("$token" "${tokens[i]}"); i=$((i + 1)) ;;
                        \#(alternatives(model.otherValueOptions.map(q)))) i=$((i + 1)) ;;
                        -*) ;;
                        *) words+=("$token") ;;
                    esac
                done
                case "$prev" in
                    \#(alternatives(model.fileOptions.map(q))))
                        compopt -o filenames 2>/dev/null
                        COMPREPLY=($(compgen -f -- "$cur"))
                        return ;;
            \#(model.valueWords.map { "        \(q($0.option))) reply=(\($0.words.joined(separator: " "))) ;;" }.joined(separator: "\n"))
                    \#(alternatives(model.otherValueOptions.map(q)))) COMPREPLY=(); return ;;
                esac
                local key used word
                _gitbay_sync_resolve "${words[@]}"
            """#
    }

    /// The completion function, second half: what to offer.
    private static func answer(_ model: CompletionModel) -> String {
        return #"""
                if ((${#reply[@]})); then
                    : # the words an option's value can be
                elif [[ $cur == -* ]]; then
                    reply=(\#((model.globalOptions.map(\.name) + model.globalOptions.compactMap { CompletionModel.shortForms[$0.name] }).joined(separator: " ")))
                    case "$key" in
            \#(model.options.map { "            \(q($0.command))) reply+=(\($0.options.map(\.name).joined(separator: " "))) ;;" }.joined(separator: "\n"))
                    esac
                elif ((${#words[@]} == 0)) || [[ ${#words[@]} == 1 && ${words[0]} == help ]]; then
                    reply=(\#(model.firstWords.map(\.word).joined(separator: " ")))
                elif [[ ${words[0]} == help ]]; then
                    ((${#words[@]} == 2)) && _gitbay_sync_subcommands "${words[1]}"
                else
                    ((${#words[@]} == 1)) && _gitbay_sync_subcommands "${words[0]}"
                    case "$key $((${#words[@]} - used))" in
            \#(argumentArms(model))
                    esac
                fi
                # Every candidate is data: filtered by a literal prefix test, never by
                # `compgen -W`, which expands the words it is given (an account name is whatever
                # a server answered, and `$(...)` in it would run).
                local -a matches=()
                for word in "${reply[@]}"; do
                    [[ $word == "$cur"* ]] && matches+=("$word")
                done
                # Readline replaces only what follows the word's last COMP_WORDBREAKS character
                # (`:`, `=`), or what starts at it for bash's `@` and `$`, so each candidate loses
                # what comes before, as bash-completion's __ltrim_colon_completions does: after
                # `alice@127.0.0.1:` it offers `39273`, after `alice@` `@127.0.0.1:39273`.
                local prefix= i char
                for ((i = ${#cur}; i > 0; i--)); do
                    char="${cur:i-1:1}"
                    if [[ $COMP_WORDBREAKS == *"$char"* && $char != [\"\'] ]]; then
                        [[ $char == [@$] ]] && i=$((i - 1))
                        prefix="${cur:0:i}"
                        break
                    fi
                done
                # Each candidate goes onto the line quoted as bash reads it back as the same word.
                COMPREPLY=()
                for word in "${matches[@]}"; do
                    printf -v word %q "${word#"$prefix"}"
                    COMPREPLY+=("$word")
                done
                return 0
            }
            """#
    }

    /// The second words of each group, and the registration.
    private static func subcommands(_ model: CompletionModel) -> String {
        return #"""
            _gitbay_sync_subcommands() {
                case "$1" in
            \#(model.subcommands.map { "        \(q($0.first))) reply+=(\($0.words.map(\.word).joined(separator: " "))) ;;" }.joined(separator: "\n"))
                esac
            }

            complete -F _gitbay_sync gitbay-sync
            """#
    }

    private static func argumentArms(_ model: CompletionModel) -> String {
        return model.arguments.map { argument in
            let action =
                switch argument.source {
                case .accounts: #"while IFS= read -r word; do reply+=("$word"); done < <(_gitbay_sync_accounts "${db[@]}")"#
                case .words(let words): "reply+=(\(words.joined(separator: " ")))"
                }
            return "            \(q("\(argument.command) \(argument.index)"))) \(action) ;;"
        }.joined(separator: "\n")
    }

    /// `_gitbay_sync_resolve`, in the shell both bash and zsh read: which command the leading
    /// words name, and how many words name it.
    static func resolveFunction(_ model: CompletionModel) -> String {
        return #"""
            _gitbay_sync_resolve() {
                # Sets key to the command the words name and used to how many words name it.
                key= used=0
                case "$1" in
            \#(model.oneWordAliases.map { "        \(q($0.alias))) key=\(q($0.command)); used=1; return ;;" }.joined(separator: "\n"))
                esac
                case "$1 $2" in
            \#(model.twoWordAliases.map { "        \(q($0.alias))) key=\(q($0.command)); used=2; return ;;" }.joined(separator: "\n"))
                    \#(alternatives(model.twoWordCommands.map(q)))) key="$1 $2"; used=2; return ;;
                esac
                case "$1" in
                    \#(alternatives(model.oneWordCommands.map(q)))) key="$1"; used=1 ;;
                esac
            }
            """#
    }

    private static func q(_ text: String) -> String { ShellQuote.posix(text) }

    /// Case patterns joined with `|`; a pattern that matches nothing when there are none.
    static func alternatives(_ patterns: [String]) -> String {
        patterns.isEmpty ? "''" : patterns.joined(separator: "|")
    }
}
