#ifndef GITBAY_SYNC_CSECRET_ITEMS_H
#define GITBAY_SYNC_CSECRET_ITEMS_H

// SECRET_SEARCH_ALL, SECRET_SEARCH_UNLOCK and SECRET_SEARCH_LOAD_SECRETS.
enum { CSECRET_SEARCH_ALL = 1 << 1, CSECRET_SEARCH_UNLOCK = 1 << 2, CSECRET_SEARCH_LOAD_SECRETS = 1 << 3 };

// Overwrites and frees the items csecret_read_all returned.
static inline void csecret_items_free(csecret_item *items, size_t count) {
    for (size_t index = 0; index < count; index++) {
        free(items[index].account);
        if (items[index].secret != NULL) {
            // Not memset: a store the compiler could drop because the memory is freed next.
            volatile char *secret = items[index].secret;
            for (size_t byte = 0; byte < items[index].secret_length; byte++) secret[byte] = 0;
            free(items[index].secret);
        }
    }
    free(items);
}

// Every item whose `service` is `service_name`, with its secret, in ONE search: one
// SearchItems call and one GetSecrets call for all unlocked items, however many there are
// (libsecret also reads each item's attributes, which the Secret Service has no call to read
// together). With `unlock`, locked items are unlocked first, which may prompt the user.
static inline csecret_result csecret_read_all(
    csecret_session *session, const char *service_name, int unlock, csecret_item **items, size_t *count) {
    const csecret_api *api = session->api;
    *items = NULL;
    *count = 0;
    void *attributes = csecret_attributes(api, service_name, NULL);
    csecret_error *error = NULL;
    int flags = CSECRET_SEARCH_ALL | CSECRET_SEARCH_LOAD_SECRETS | (unlock ? CSECRET_SEARCH_UNLOCK : 0);
    csecret_list *found = api->service_search_sync(session->service, &csecret_token_schema, attributes, flags, session->cancellable, &error);
    api->hash_table_unref(attributes);
    if (error != NULL) return csecret_failure(api, CSECRET_FAILED, error);
    size_t length = 0;
    for (csecret_list *node = found; node != NULL; node = node->next) length++;
    *items = calloc(length > 0 ? length : 1, sizeof(csecret_item));
    for (csecret_list *node = found; node != NULL; node = node->next) {
        void *item_attributes = api->item_get_attributes(node->data);
        const char *account = item_attributes != NULL ? api->hash_table_lookup(item_attributes, "account") : NULL;
        if (account != NULL && *items != NULL) {
            csecret_item *entry = &(*items)[(*count)++];
            entry->account = strdup(account);
            entry->locked = api->item_get_locked(node->data);
            void *value = api->item_get_secret(node->data);
            if (value != NULL) {
                size_t secret_length = 0;
                const char *secret = api->value_get(value, &secret_length);
                entry->secret = malloc(secret_length + 1);
                memcpy(entry->secret, secret, secret_length);
                entry->secret[secret_length] = 0;
                entry->secret_length = secret_length;
                api->value_unref(value);
            }
        }
        if (item_attributes != NULL) api->hash_table_unref(item_attributes);
        api->object_unref(node->data);
    }
    api->list_free(found);
    return csecret_status_only(CSECRET_OK);
}

// Whether the default collection (where a store goes) is locked: OK, LOCKED, NO_KEYRING.
static inline csecret_result csecret_default_collection(csecret_session *session) {
    const csecret_api *api = session->api;
    csecret_error *error = NULL;
    void *collection = api->collection_for_alias_sync(session->service, "default", 0, session->cancellable, &error);
    if (error != NULL) return csecret_failure(api, CSECRET_FAILED, error);
    if (collection == NULL) return csecret_status_only(CSECRET_NO_KEYRING);
    int locked = api->collection_get_locked(collection);
    api->object_unref(collection);
    return csecret_status_only(locked ? CSECRET_LOCKED : CSECRET_OK);
}

// Stores `secret` as the item of `account` in the default collection, replacing the one
// already there. Without `unlock`, a locked or missing default collection is reported before
// anything is sent that would prompt.
static inline csecret_result csecret_store(
    csecret_session *session, const char *service_name, const char *account, const char *label, const char *secret,
    size_t secret_length, int unlock) {
    const csecret_api *api = session->api;
    if (!unlock) {
        csecret_result collection = csecret_default_collection(session);
        if (collection.status != CSECRET_OK) return collection;
    }
    void *attributes = csecret_attributes(api, service_name, account);
    void *value = api->value_new(secret, (ssize_t)secret_length, "text/plain");
    csecret_error *error = NULL;
    int stored = api->service_store_sync(
        session->service, &csecret_token_schema, attributes, "default", label, value, session->cancellable, &error);
    api->value_unref(value);
    api->hash_table_unref(attributes);
    if (!stored) return csecret_failure(api, CSECRET_FAILED, error);
    return csecret_status_only(CSECRET_OK);
}

// Deletes every item of `account`: OK, NO_ITEM when there is none, LOCKED when one is locked
// and `unlock` is off (or the unlock did not happen); nothing is deleted then.
static inline csecret_result csecret_delete(csecret_session *session, const char *service_name, const char *account, int unlock) {
    const csecret_api *api = session->api;
    void *attributes = csecret_attributes(api, service_name, account);
    char **unlocked = NULL, **locked = NULL;
    csecret_error *error = NULL;
    int searched = api->service_search_for_dbus_paths_sync(
        session->service, &csecret_token_schema, attributes, session->cancellable, &unlocked, &locked, &error);
    csecret_result result = csecret_status_only(CSECRET_OK);
    if (!searched) {
        result = csecret_failure(api, CSECRET_FAILED, error);
    } else if ((unlocked == NULL || unlocked[0] == NULL) && (locked == NULL || locked[0] == NULL)) {
        result = csecret_status_only(CSECRET_NO_ITEM);
    } else if (locked != NULL && locked[0] != NULL) {
        char **now_unlocked = NULL;
        int count = unlock ? api->service_unlock_dbus_paths_sync(
                                 session->service, (const char **)locked, session->cancellable, &now_unlocked, &error)
                           : 0;
        size_t wanted = 0, got = 0;
        while (locked[wanted] != NULL) wanted++;
        while (now_unlocked != NULL && now_unlocked[got] != NULL) got++;
        if (error != NULL) result = csecret_failure(api, CSECRET_FAILED, error);
        else if (count < 0 || got < wanted) result = csecret_status_only(CSECRET_LOCKED);
        api->strfreev(now_unlocked);
    }
    if (result.status == CSECRET_OK) {
        int cleared = api->service_clear_sync(session->service, &csecret_token_schema, attributes, session->cancellable, &error);
        if (error != NULL) result = csecret_failure(api, CSECRET_FAILED, error);
        else if (!cleared) result = csecret_status_only(CSECRET_NO_ITEM);
    }
    api->strfreev(unlocked);
    api->strfreev(locked);
    api->hash_table_unref(attributes);
    return result;
}

#endif
