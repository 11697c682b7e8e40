#ifndef GITBAY_SYNC_CSECRET_OPERATIONS_H
#define GITBAY_SYNC_CSECRET_OPERATIONS_H

// The keyring operations gitbay-sync needs, each one synchronous call of libsecret on the
// calling thread (a queue of its own, never a cooperative thread), bounded by `cancellable`,
// which the caller cancels at its deadline, and by the proxies' D-Bus timeout.
//
// Every operation runs inside a session: a private GMainContext pushed as the thread's
// default for its whole life, so that nothing libsecret or GDBus schedules lands in (and
// waits forever in) the global default context; a D-Bus connection of its own to the
// address given, never the process's shared session bus, so that the address comes from
// the caller's environment and two sessions with two buses never meet; and a SecretService
// proxy on that connection.

// How an operation ended.
typedef enum {
    CSECRET_OK = 0,
    // delete: nothing of this program's matched the account.
    CSECRET_NO_ITEM = 1,
    // The item or the collection it would go in is locked, and unlocking was not allowed
    // (or did not unlock it).
    CSECRET_LOCKED = 2,
    // store: there is no default collection (creating one would need a prompt).
    CSECRET_NO_KEYRING = 3,
    // The D-Bus connection could not be made (no bus at the address, or it never answered).
    CSECRET_CONNECT_FAILED = 4,
    // An error from GLib, D-Bus or the Secret Service: see the error fields.
    CSECRET_FAILED = 5,
} csecret_status;

// An operation's outcome. The strings are the caller's to release with csecret_result_free.
typedef struct {
    csecret_status status;
    // The GError's domain name (e.g. "g-io-error-quark"), code, D-Bus error name when the
    // error came from the peer, and message; NULL when there is no error.
    char *domain;
    int code;
    char *remote_name;
    char *message;
} csecret_result;

// One item found: its `account` attribute, and the secret unless the item is locked.
typedef struct {
    char *account;
    char *secret;
    size_t secret_length;
    int locked;
} csecret_item;

typedef struct {
    const csecret_api *api;
    void *context;
    void *connection;
    void *service;
    void *cancellable;
} csecret_session;

// The schema of gitbay-sync's items: `service` (always "gitbay-sync") and `account`
// (`user@host`). DONT_MATCH_NAME: searches match on the attributes alone, so an item stored
// by another tool with the same attributes (secret-tool, Seahorse) is found too.
static const csecret_schema csecret_token_schema = {
    "org.gitbay.sync.Token",
    1 << 1,
    {{"service", 0}, {"account", 0}, {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static inline char *csecret_copy(const char *text) {
    return text != NULL ? strdup(text) : NULL;
}

// Takes `error` (freeing it) into a result with `status`.
static inline csecret_result csecret_failure(const csecret_api *api, csecret_status status, csecret_error *error) {
    csecret_result result = {status, NULL, 0, NULL, NULL};
    if (error != NULL) {
        result.domain = csecret_copy(api->quark_to_string(error->domain));
        result.code = error->code;
        char *remote = api->dbus_error_get_remote_error(error);
        result.remote_name = csecret_copy(remote);
        api->free(remote);
        result.message = csecret_copy(error->message);
        api->error_free(error);
    }
    return result;
}

static inline csecret_result csecret_status_only(csecret_status status) {
    csecret_result result = {status, NULL, 0, NULL, NULL};
    return result;
}

static inline void csecret_result_free(csecret_result *result) {
    free(result->domain);
    free(result->remote_name);
    free(result->message);
}

// Closes `connection` before returning (its socket is closed locally; nothing waits for the
// bus), so that no close is left to finish in a context that is about to go: an
// asynchronous close's task kept the session's context, and its wake-up descriptor, alive.
static inline void csecret_connection_close(const csecret_api *api, void *connection) {
    csecret_error *error = NULL;
    if (!api->dbus_connection_close_sync(connection, NULL, &error) && error != NULL) api->error_free(error);
}

// Opens a session on the bus at `address`, with a SecretService of `service_type`
// (csecret_service_type); `timeout_ms` bounds every D-Bus call the proxies make without a
// cancellable. On failure nothing is left open.
static inline csecret_result csecret_session_open(
    const csecret_api *api, size_t service_type, const char *address, int timeout_ms, void *cancellable, csecret_session *session) {
    session->api = api;
    session->cancellable = cancellable;
    session->service = NULL;
    session->context = api->main_context_new();
    api->main_context_push_thread_default(session->context);
    csecret_error *error = NULL;
    // AUTHENTICATION_CLIENT | MESSAGE_BUS_CONNECTION: a client of a message bus.
    session->connection = api->dbus_connection_new_for_address_sync(address, (1 << 0) | (1 << 3), NULL, cancellable, &error);
    if (session->connection == NULL) {
        api->main_context_pop_thread_default(session->context);
        api->main_context_unref(session->context);
        return csecret_failure(api, CSECRET_CONNECT_FAILED, error);
    }
    csecret_initable_new_function initable_new = (csecret_initable_new_function)api->initable_new;
    // DO_NOT_LOAD_PROPERTIES | DO_NOT_CONNECT_SIGNALS: nothing here reads the service's
    // properties or follows its signals, so neither costs a call or waits in a context.
    session->service = initable_new(
        service_type, cancellable, &error, "g-flags", (1 << 0) | (1 << 1), "g-name", "org.freedesktop.secrets",
        "g-connection", session->connection, "g-object-path", "/org/freedesktop/secrets", "g-interface-name",
        "org.freedesktop.Secret.Service", "g-default-timeout", timeout_ms, "flags", 0, NULL);
    if (session->service == NULL) {
        csecret_connection_close(api, session->connection);
        api->object_unref(session->connection);
        api->main_context_pop_thread_default(session->context);
        api->main_context_unref(session->context);
        return csecret_failure(api, CSECRET_FAILED, error);
    }
    return csecret_status_only(CSECRET_OK);
}

// Closes the connection and drops the context and everything still scheduled in it.
static inline void csecret_session_close(csecret_session *session) {
    const csecret_api *api = session->api;
    api->object_unref(session->service);
    csecret_connection_close(api, session->connection);
    api->object_unref(session->connection);
    // What the close scheduled runs now, a bounded number of times, before the context goes.
    for (int turn = 0; turn < 64 && api->main_context_iteration(session->context, 0); turn++) {
    }
    api->main_context_pop_thread_default(session->context);
    api->main_context_unref(session->context);
}

// {service: `service_name`}, with `account` too unless it is NULL. The strings are borrowed.
static inline void *csecret_attributes(const csecret_api *api, const char *service_name, const char *account) {
    void *attributes = api->hash_table_new(api->str_hash, api->str_equal);
    api->hash_table_insert(attributes, (void *)"service", (void *)service_name);
    if (account != NULL) api->hash_table_insert(attributes, (void *)"account", (void *)account);
    return attributes;
}

#include "items.h"

#endif
