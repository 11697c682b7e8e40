/// The fish completion script: `complete` rules whose conditions find the command the line
/// names so far.
enum FishCompletion {
    static func render(_ model: CompletionModel) -> String {
        let q = ShellQuote.fish
        var lines = [header(model), conditions(model), "", "complete -c gitbay-sync -f"]
        for option in model.globalOptions {
            lines.append("complete -c gitbay-sync" + flags(option, short: CompletionModel.shortForms[option.name]))
        }
        for word in model.firstWords {
            lines.append("complete -c gitbay-sync -n __gitbay_sync_needs_command -a \(q(word.word)) -d \(q(ShellQuote.about(word.about)))")
        }
        for group in model.subcommands {
            for word in group.words {
                lines.append(
                    "complete -c gitbay-sync -n \(q("__gitbay_sync_needs_subcommand \(group.first)")) -a \(q(word.word)) -d \(q(ShellQuote.about(word.about)))"
                )
            }
        }
        for (command, options) in model.options {
            let condition = q("__gitbay_sync_command_is \"\(command)\"")
            lines += options.map { "complete -c gitbay-sync -n \(condition)" + flags($0, short: nil) }
        }
        for argument in model.arguments {
            let condition = q("__gitbay_sync_argument_is \"\(argument.command)\" \(argument.index)")
            let values =
                switch argument.source {
                case .accounts: "'(__gitbay_sync_accounts)'"
                case .words(let words): q(words.joined(separator: " "))
                }
            lines.append("complete -c gitbay-sync -n \(condition) -a \(values)")
        }
        return lines.joined(separator: "\n")
    }

    /// `complete` flags for an option: its long name, whether it takes a value (a file for a path), its help.
    private static func flags(_ option: CommandSpec.Option, short: String?) -> String {
        var text = " -l " + option.name.dropFirst(2)
        if let short { text += " -s " + short.dropFirst() }
        if let valueName = option.valueName {
            // A value that is one of a few words (`keyring|database`): those words, and no file.
            let words = valueName.split(separator: "|")
            text += valueName == "PATH" ? " -r -F" : words.count > 1 ? " -x -a " + ShellQuote.fish(words.joined(separator: " ")) : " -r"
        }
        return text + " -d " + ShellQuote.fish(ShellQuote.about(option.help))
    }

    private static func header(_ model: CompletionModel) -> String {
        let q = ShellQuote.fish
        let aliasArms = model.oneWordAliases.map { "        case \(q($0.alias))\n            printf '%s\\n' \(q($0.command)) 1\n            return" }
        let secondAliasArms = model.twoWordAliases.map {
            "        case \(q($0.alias))\n            printf '%s\\n' \(q($0.command)) 2\n            return"
        }
        return """
            # fish completion for gitbay-sync, as printed by `gitbay-sync completions fish`.

            function __gitbay_sync_words --description 'The words of the command line so far that are not options or their values'
                set -l tokens (commandline -opc)
                set -e tokens[1]
                set -l skip 0
                for token in $tokens
                    if test $skip = 1
                        set skip 0
                        continue
                    end
                    switch $token
                        case \(model.valueOptions.map(q).joined(separator: " "))
                            set skip 1
                        case '-*'
                        case '*'
                            printf '%s\\n' $token
                    end
                end
            end

            function __gitbay_sync_resolve --description 'The command the words name, and how many words name it'
                switch "$argv[1]"
            \(aliasArms.joined(separator: "\n"))
                end
                switch "$argv[1] $argv[2]"
            \(secondAliasArms.joined(separator: "\n"))
                    case \(model.twoWordCommands.map(q).joined(separator: " "))
                        printf '%s\\n' "$argv[1] $argv[2]" 2
                        return
                end
                switch "$argv[1]"
                    case \(model.oneWordCommands.map(q).joined(separator: " "))
                        printf '%s\\n' $argv[1] 1
                end
            end

            """
    }

    /// The conditions of the rules, and the accounts.
    private static func conditions(_ model: CompletionModel) -> String {
        """
        function __gitbay_sync_needs_command
            set -l words (__gitbay_sync_words)
            test (count $words) -eq 0; or test "$words" = help
        end

        function __gitbay_sync_needs_subcommand
            set -l words (__gitbay_sync_words)
            test "$words" = "$argv[1]"; or test "$words" = "help $argv[1]"
        end

        function __gitbay_sync_command_is
            set -l resolved (__gitbay_sync_resolve (__gitbay_sync_words))
            test "$resolved[1]" = "$argv[1]"
        end

        function __gitbay_sync_argument_is
            set -l words (__gitbay_sync_words)
            set -l resolved (__gitbay_sync_resolve $words)
            test "$resolved[1]" = "$argv[1]"; and test (math (count $words) - $resolved[2]) -eq $argv[2]
        end

        function __gitbay_sync_accounts
            set -l db
            set -l tokens (commandline -opc)
            for index in (seq (count $tokens))
                if contains -- $tokens[$index] \(model.fileOptions.joined(separator: " ")); and test $index -lt (count $tokens)
                    set db $tokens[$index] $tokens[(math $index + 1)]
                end
            end
            command gitbay-sync $db accounts --json 2>/dev/null | string match -ar '"account": *"(?:[^"\\\\\\\\]|\\\\\\\\.)*"' | string replace -r '^"account": *"(.*)"$' '$1' | string replace -ra '\\\\\\\\(.)' '$1'
        end
        """
    }
}
