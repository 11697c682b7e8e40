/*
 * The floor for scripts/bench: the least a steady run's stack must do, and nothing else.
 *
 * For each account, one conditional GET of its device list, with its token and the ETag its
 * server gave, answered 304: one libcurl multi handle, the easy handles reused, the same
 * header fields and the same libcurl options as gitbay-sync's transport
 * (Sources/GitbayCurl: CurlEasyHandle.swift and +Options, CurlEventLoop.swift,
 * ConnectionPool.swift): HTTP/2 over TLS with streams multiplexed and PIPEWAIT, at most 8
 * connections per instance and 64 kept, TLS sessions shared, 10 s connect and 30 s request
 * timeouts, a 1 MB answer at most, a 1 KB receive buffer, no proxy, no signals. No database,
 * no JSON, no threads.
 *
 * Usage: bench-floor ACCOUNTS-FILE [IN-ALL [PER-INSTANCE]]
 *   ACCOUNTS-FILE: one account a line, "URL<TAB>TOKEN<TAB>ETAG" (URL the instance's, no
 *   trailing slash); IN-ALL: the most requests in flight in all (default: all of them);
 *   PER-INSTANCE: the most in flight to one instance (default: IN-ALL). The certificate
 *   authorities come from SSL_CERT_FILE when it is set, as gitbay-sync takes them.
 * Prints "requests N, 304 N, other N" on stderr; exits 0 when every answer was a 304.
 *
 * Built by scripts/bench: cc -O2 -o bench-floor scripts/bench-floor.c -lcurl
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READ_PATH "/api/v1/read?argv=notifications&argv=device&argv=list"

struct account {
    char *url;     /* the read URL, whole */
    char *origin;  /* the instance, for the per-instance bound */
    struct curl_slist *headers;
};

struct slot {
    CURL *easy;
    char error[CURL_ERROR_SIZE];
    int account;   /* -1: idle */
};

static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

static int keep_going(void *context, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d) {
    (void)context; (void)a; (void)b; (void)c; (void)d;
    return 0;
}

static char *copy(const char *text, size_t length) {
    char *result = malloc(length + 1);
    memcpy(result, text, length);
    result[length] = 0;
    return result;
}

static char *joined(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *result = malloc(la + lb + 1);
    memcpy(result, a, la);
    memcpy(result + la, b, lb + 1);
    return result;
}

/* Reads the accounts file; returns the count. */
static int read_accounts(const char *path, struct account **accounts) {
    FILE *file = fopen(path, "r");
    if (!file) { perror(path); exit(2); }
    char line[4096];
    int count = 0, capacity = 0;
    *accounts = NULL;
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\r\n")] = 0;
        char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
        if (!tab2) continue;
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            *accounts = realloc(*accounts, capacity * sizeof **accounts);
        }
        struct account *account = &(*accounts)[count++];
        account->origin = copy(line, tab1 - line);
        account->url = joined(account->origin, READ_PATH);
        char *token = copy(tab1 + 1, tab2 - tab1 - 1);
        char *bearer = joined("Authorization: Bearer ", token);
        char *tag = joined("If-None-Match: ", tab2 + 1);
        /* In the order gitbay-sync sends them, with its empty Expect: last. */
        struct curl_slist *headers = curl_slist_append(NULL, bearer);
        headers = curl_slist_append(headers, "Accept: application/json");
        headers = curl_slist_append(headers, tag);
        account->headers = curl_slist_append(headers, "Expect:");
        free(token); free(bearer); free(tag);
    }
    fclose(file);
    return count;
}

static void prepare(struct slot *slot, struct account *account, CURLSH *share, const char *authorities) {
    CURL *h = slot->easy;
    slot->error[0] = 0;
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, slot->error);
    curl_easy_setopt(h, CURLOPT_SHARE, share);
    curl_easy_setopt(h, CURLOPT_URL, account->url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)1 << 20);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "gitbay-sync");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, account->headers);
    if (authorities) curl_easy_setopt(h, CURLOPT_CAINFO, authorities);
    curl_easy_setopt(h, CURLOPT_PROXY, "");
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(h, CURLOPT_PIPEWAIT, strncmp(account->url, "https:", 6) == 0 ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, discard);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, keep_going);
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench-floor ACCOUNTS-FILE [IN-ALL [PER-INSTANCE]]\n");
        return 64;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    struct account *accounts;
    int count = read_accounts(argv[1], &accounts);
    int in_all = argc > 2 ? atoi(argv[2]) : count;
    if (in_all < 1 || in_all > count) in_all = count;
    int per_instance = argc > 3 ? atoi(argv[3]) : in_all;
    if (per_instance < 1) per_instance = in_all;
    const char *authorities = getenv("SSL_CERT_FILE");

    CURLSH *share = curl_share_init();
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 64L);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 8L);

    struct slot *slots = calloc(in_all, sizeof *slots);
    for (int index = 0; index < in_all; index++) {
        slots[index].easy = curl_easy_init();
        slots[index].account = -1;
        curl_easy_setopt(slots[index].easy, CURLOPT_BUFFERSIZE, 1024L);
        curl_easy_setopt(slots[index].easy, CURLOPT_PRIVATE, &slots[index]);
    }
    /* In flight per account's instance (accounts of one instance share its origin string's
       value; a linear search over the few instances is all it takes). */
    const char **origins = calloc(count, sizeof *origins);
    int *flying = calloc(count, sizeof *flying), instances = 0;
    int *instance_of = calloc(count, sizeof *instance_of);
    for (int index = 0; index < count; index++) {
        int found = 0;
        while (found < instances && strcmp(origins[found], accounts[index].origin) != 0) found++;
        if (found == instances) origins[instances++] = accounts[index].origin;
        instance_of[index] = found;
    }

    int next = 0, running = 0, done = 0, not_modified = 0, other = 0;
    while (done < count) {
        /* Start what the bounds allow, in the accounts' order. */
        for (int index = 0; index < in_all && next < count; index++) {
            if (slots[index].account >= 0) continue;
            if (flying[instance_of[next]] >= per_instance) break;
            slots[index].account = next;
            flying[instance_of[next]]++;
            prepare(&slots[index], &accounts[next], share, authorities);
            curl_multi_add_handle(multi, slots[index].easy);
            next++;
        }
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            struct slot *slot;
            long status = 0;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&slot);
            curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result == CURLE_OK && status == 304) {
                not_modified++;
            } else {
                other++;
                fprintf(stderr, "bench-floor: %s: %s (HTTP %ld)\n", accounts[slot->account].url,
                        slot->error[0] ? slot->error : curl_easy_strerror(message->data.result), status);
            }
            curl_multi_remove_handle(multi, message->easy_handle);
            flying[instance_of[slot->account]]--;
            slot->account = -1;
            done++;
        }
        /* At most 50 ms, as gitbay-sync's loop nudges its sockets (CurlEventLoop.nudgeMilliseconds):
           libcurl 7.88 can hold a stream's answer, already read from a shared HTTP/2 connection,
           with neither a socket event nor a timer due for it. */
        if (done < count) curl_multi_poll(multi, NULL, 0, 50, NULL);
    }
    fprintf(stderr, "requests %d, 304 %d, other %d\n", count, not_modified, other);

    for (int index = 0; index < in_all; index++) curl_easy_cleanup(slots[index].easy);
    curl_multi_cleanup(multi);
    curl_share_cleanup(share);
    for (int index = 0; index < count; index++) {
        curl_slist_free_all(accounts[index].headers);
        free(accounts[index].url);
        free(accounts[index].origin);
    }
    free(accounts); free(slots); free(origins); free(flying); free(instance_of);
    curl_global_cleanup();
    return other == 0 ? 0 : 1;
}
