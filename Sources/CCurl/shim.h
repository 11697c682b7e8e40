#ifndef GITBAY_SYNC_CCURL_SHIM_H
#define GITBAY_SYNC_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

// libcurl is opened when the first request is sent (GitbayAPI's CurlLibrary), not linked, so
// that a command that sends nothing (status, accounts, resolve) never loads it and the thirty
// libraries it needs. Its functions are reached through this table, which ccurl_open fills.
//
// The variadic ones (the setopt and getinfo functions) are kept as plain pointers: Swift can
// neither call a variadic function nor hold a pointer to one. The typed wrappers below call
// them with their real type, one wrapper per argument type.
typedef struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    void (*easy_reset)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_socket_action)(CURLM *multi, curl_socket_t socket, int events, int *running);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *queued);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    CURLSH *(*share_init)(void);
    CURLSHcode (*share_cleanup)(CURLSH *share);
    void *easy_setopt;
    void *easy_getinfo;
    void *multi_setopt;
    void *share_setopt;
} ccurl_api;

typedef CURLcode (*ccurl_easy_setopt_function)(CURL *, CURLoption, ...);
typedef CURLcode (*ccurl_easy_getinfo_function)(CURL *, CURLINFO, ...);
typedef CURLMcode (*ccurl_multi_setopt_function)(CURLM *, CURLMoption, ...);
typedef CURLSHcode (*ccurl_share_setopt_function)(CURLSH *, CURLSHoption, ...);

// Opens the libcurl at `path` and fills `api`. NULL when every function was found; otherwise
// why not (the loader's message, or the name of the function missing), valid until the next
// call. The library stays open for the life of the process.
//
// Every function gitbay-sync calls is looked up here, so a libcurl that lacks one is reported
// before a command does anything. The rest is bound as first called (RTLD_LAZY), as for any
// program linked with libcurl: binding every symbol of libcurl's thirty libraries at open
// (RTLD_NOW), code for protocols no command uses included, cost each process about 2.9 M
// instructions, a tenth of a steady run of one account.
static inline const char *ccurl_open(const char *path, ccurl_api *api) {
    void *library = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        return reason != NULL ? reason : "the library could not be opened";
    }
#define CCURL_FIND(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "a function is missing: " name;
    CCURL_FIND(global_init, "curl_global_init")
    CCURL_FIND(easy_init, "curl_easy_init")
    CCURL_FIND(easy_cleanup, "curl_easy_cleanup")
    CCURL_FIND(easy_reset, "curl_easy_reset")
    CCURL_FIND(easy_strerror, "curl_easy_strerror")
    CCURL_FIND(slist_append, "curl_slist_append")
    CCURL_FIND(slist_free_all, "curl_slist_free_all")
    CCURL_FIND(multi_init, "curl_multi_init")
    CCURL_FIND(multi_add_handle, "curl_multi_add_handle")
    CCURL_FIND(multi_remove_handle, "curl_multi_remove_handle")
    CCURL_FIND(multi_socket_action, "curl_multi_socket_action")
    CCURL_FIND(multi_info_read, "curl_multi_info_read")
    CCURL_FIND(multi_cleanup, "curl_multi_cleanup")
    CCURL_FIND(share_init, "curl_share_init")
    CCURL_FIND(share_cleanup, "curl_share_cleanup")
    CCURL_FIND(easy_setopt, "curl_easy_setopt")
    CCURL_FIND(easy_getinfo, "curl_easy_getinfo")
    CCURL_FIND(multi_setopt, "curl_multi_setopt")
    CCURL_FIND(share_setopt, "curl_share_setopt")
#undef CCURL_FIND
    return NULL;
}

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);

#define CCURL_SETOPT(api) ((ccurl_easy_setopt_function)(api)->easy_setopt)
#define CCURL_GETINFO(api) ((ccurl_easy_getinfo_function)(api)->easy_getinfo)

static inline CURLcode ccurl_setopt_long(const ccurl_api *api, CURL *handle, CURLoption option, long value) {
    return CCURL_SETOPT(api)(handle, option, value);
}

static inline CURLcode ccurl_setopt_string(const ccurl_api *api, CURL *handle, CURLoption option, const char *value) {
    return CCURL_SETOPT(api)(handle, option, value);
}

static inline CURLcode ccurl_setopt_pointer(const ccurl_api *api, CURL *handle, CURLoption option, void *value) {
    return CCURL_SETOPT(api)(handle, option, value);
}

static inline CURLcode ccurl_setopt_off(const ccurl_api *api, CURL *handle, CURLoption option, curl_off_t value) {
    return CCURL_SETOPT(api)(handle, option, value);
}

static inline CURLcode ccurl_setopt_data_callback(const ccurl_api *api, CURL *handle, CURLoption option,
                                                  ccurl_data_callback callback) {
    return CCURL_SETOPT(api)(handle, option, callback);
}

static inline CURLcode ccurl_setopt_progress_callback(const ccurl_api *api, CURL *handle, CURLoption option,
                                                      ccurl_progress_callback callback) {
    return CCURL_SETOPT(api)(handle, option, callback);
}

static inline CURLcode ccurl_getinfo_long(const ccurl_api *api, CURL *handle, CURLINFO info, long *value) {
    return CCURL_GETINFO(api)(handle, info, value);
}

static inline CURLcode ccurl_getinfo_off(const ccurl_api *api, CURL *handle, CURLINFO info, curl_off_t *value) {
    return CCURL_GETINFO(api)(handle, info, value);
}

static inline CURLcode ccurl_getinfo_string(const ccurl_api *api, CURL *handle, CURLINFO info, char **value) {
    return CCURL_GETINFO(api)(handle, info, value);
}

#undef CCURL_SETOPT
#undef CCURL_GETINFO

static inline CURLMcode ccurl_multi_setopt_long(const ccurl_api *api, CURLM *multi, CURLMoption option, long value) {
    return ((ccurl_multi_setopt_function)api->multi_setopt)(multi, option, value);
}

// What curl tells the application that drives its sockets: which socket to watch for what
// (CURL_POLL_IN, _OUT, _INOUT or _REMOVE), and when to call it back at the latest (-1: no timer).
typedef int (*ccurl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *context, void *socket_context);
typedef int (*ccurl_timer_callback)(CURLM *multi, long timeout_ms, void *context);

static inline CURLMcode ccurl_multi_drive_sockets(const ccurl_api *api, CURLM *multi, ccurl_socket_callback on_socket,
                                                   ccurl_timer_callback on_timer, void *context) {
    ccurl_multi_setopt_function setopt = (ccurl_multi_setopt_function)api->multi_setopt;
    CURLMcode code = setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    if (code == CURLM_OK) code = setopt(multi, CURLMOPT_SOCKETDATA, context);
    if (code == CURLM_OK) code = setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
    if (code == CURLM_OK) code = setopt(multi, CURLMOPT_TIMERDATA, context);
    return code;
}

// The next finished transfer of `multi`, if any: its easy handle and its result.
static inline CURL *ccurl_multi_next_done(const ccurl_api *api, CURLM *multi, CURLcode *result) {
    int queued = 0;
    CURLMsg *message;
    while ((message = api->multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *result = message->data.result;
            return message->easy_handle;
        }
    }
    return NULL;
}

// A share handle for TLS sessions, with one mutex per kind of data it guards, so that easy
// handles on any thread may attach to it, use it and leave it.
typedef struct {
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
} ccurl_share_locks;

static inline void ccurl_share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *context) {
    (void)handle;
    (void)access;
    pthread_mutex_lock(&((ccurl_share_locks *)context)->locks[data]);
}

static inline void ccurl_share_unlock(CURL *handle, curl_lock_data data, void *context) {
    (void)handle;
    pthread_mutex_unlock(&((ccurl_share_locks *)context)->locks[data]);
}

// A new share of TLS sessions and its locks; NULL when out of memory. Free both with
// ccurl_share_free once no easy handle uses the share.
static inline CURLSH *ccurl_share_new(const ccurl_api *api, ccurl_share_locks **locks_out) {
    ccurl_share_locks *locks = malloc(sizeof *locks);
    if (locks == NULL) return NULL;
    for (int index = 0; index < CURL_LOCK_DATA_LAST; index++) pthread_mutex_init(&locks->locks[index], NULL);
    ccurl_share_setopt_function setopt = (ccurl_share_setopt_function)api->share_setopt;
    CURLSH *share = api->share_init();
    if (share == NULL
        || setopt(share, CURLSHOPT_LOCKFUNC, ccurl_share_lock) != CURLSHE_OK
        || setopt(share, CURLSHOPT_UNLOCKFUNC, ccurl_share_unlock) != CURLSHE_OK
        || setopt(share, CURLSHOPT_USERDATA, locks) != CURLSHE_OK
        || setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK) {
        if (share != NULL) api->share_cleanup(share);
        for (int index = 0; index < CURL_LOCK_DATA_LAST; index++) pthread_mutex_destroy(&locks->locks[index]);
        free(locks);
        return NULL;
    }
    *locks_out = locks;
    return share;
}

static inline void ccurl_share_free(const ccurl_api *api, CURLSH *share, ccurl_share_locks *locks) {
    api->share_cleanup(share);
    for (int index = 0; index < CURL_LOCK_DATA_LAST; index++) pthread_mutex_destroy(&locks->locks[index]);
    free(locks);
}

#endif
