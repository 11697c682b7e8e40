#ifndef GITBAY_SYNC_CCURL_SHIM_H
#define GITBAY_SYNC_CCURL_SHIM_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
// One typed wrapper per argument type reaches them.

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_data_callback(CURL *handle, CURLoption option,
                                                  ccurl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode ccurl_setopt_progress_callback(CURL *handle, CURLoption option,
                                                      ccurl_progress_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

// curl_multi_setopt is variadic too.
static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// What curl tells the application that drives its sockets: which socket to watch for what
// (CURL_POLL_IN, _OUT, _INOUT or _REMOVE), and when to call it back at the latest (-1: no timer).
typedef int (*ccurl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *context, void *socket_context);
typedef int (*ccurl_timer_callback)(CURLM *multi, long timeout_ms, void *context);

static inline CURLMcode ccurl_multi_drive_sockets(CURLM *multi, ccurl_socket_callback on_socket,
                                                   ccurl_timer_callback on_timer, void *context) {
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    if (code == CURLM_OK) code = curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, context);
    if (code == CURLM_OK) code = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
    if (code == CURLM_OK) code = curl_multi_setopt(multi, CURLMOPT_TIMERDATA, context);
    return code;
}

// The next finished transfer of `multi`, if any: its easy handle and its result.
static inline CURL *ccurl_multi_next_done(CURLM *multi, CURLcode *result) {
    int queued = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
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
static inline CURLSH *ccurl_share_new(ccurl_share_locks **locks_out) {
    ccurl_share_locks *locks = malloc(sizeof *locks);
    if (locks == NULL) return NULL;
    for (int index = 0; index < CURL_LOCK_DATA_LAST; index++) pthread_mutex_init(&locks->locks[index], NULL);
    CURLSH *share = curl_share_init();
    if (share == NULL
        || curl_share_setopt(share, CURLSHOPT_LOCKFUNC, ccurl_share_lock) != CURLSHE_OK
        || curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, ccurl_share_unlock) != CURLSHE_OK
        || curl_share_setopt(share, CURLSHOPT_USERDATA, locks) != CURLSHE_OK
        || curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK) {
        if (share != NULL) curl_share_cleanup(share);
        for (int index = 0; index < CURL_LOCK_DATA_LAST; index++) pthread_mutex_destroy(&locks->locks[index]);
        free(locks);
        return NULL;
    }
    *locks_out = locks;
    return share;
}

static inline void ccurl_share_free(CURLSH *share, ccurl_share_locks *locks) {
    curl_share_cleanup(share);
    for (int index = 0; index < CURL_LOCK_DATA_LAST; index++) pthread_mutex_destroy(&locks->locks[index]);
    free(locks);
}

#endif
