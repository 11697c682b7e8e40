#ifndef GITBAY_SYNC_CSECRET_SHIM_H
#define GITBAY_SYNC_CSECRET_SHIM_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

// libsecret (the freedesktop Secret Service client) is opened at run time (GitbayKeyring's
// SecretLibrary), not linked: gitbay-sync must run where it is not installed, and a command
// that never touches the keyring must not load it, GLib, GIO and libgcrypt.
//
// No GLib or libsecret header is included, so building needs no -dev package: the few types
// used are declared here. Handles are opaque; the structs spelled out (GError, GList,
// SecretSchema) are part of those libraries' stable ABI.
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} csecret_error;

typedef struct csecret_list {
    void *data;
    struct csecret_list *next;
    struct csecret_list *prev;
} csecret_list;

typedef struct {
    const char *name;
    int type;  // SECRET_SCHEMA_ATTRIBUTE_STRING is 0
} csecret_schema_attribute;

typedef struct {
    const char *name;
    int flags;
    csecret_schema_attribute attributes[32];
    int reserved;
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} csecret_schema;

// The entry points, filled by csecret_open.
typedef struct {
    void *(*hash_table_new)(unsigned (*hash)(const void *), int (*equal)(const void *, const void *));
    int (*hash_table_insert)(void *table, void *key, void *value);
    void *(*hash_table_lookup)(void *table, const void *key);
    void (*hash_table_unref)(void *table);
    unsigned (*str_hash)(const void *);
    int (*str_equal)(const void *, const void *);
    void (*list_free)(csecret_list *list);
    void (*error_free)(csecret_error *error);
    const char *(*quark_to_string)(uint32_t quark);
    void (*free)(void *memory);
    void (*strfreev)(char **strings);
    void *(*main_context_new)(void);
    void (*main_context_push_thread_default)(void *context);
    void (*main_context_pop_thread_default)(void *context);
    void (*main_context_unref)(void *context);
    int (*main_context_iteration)(void *context, int may_block);
    void (*object_unref)(void *object);
    void *(*cancellable_new)(void);
    void (*cancellable_cancel)(void *cancellable);
    void *(*dbus_connection_new_for_address_sync)(const char *address, int flags, void *observer, void *cancellable, csecret_error **error);
    int (*dbus_connection_close_sync)(void *connection, void *cancellable, csecret_error **error);
    char *(*dbus_error_get_remote_error)(const csecret_error *error);
    void *initable_new;  // variadic: reached through csecret_session_open
    size_t (*type_register_static_simple)(
        size_t parent, const char *name, unsigned class_size, void (*class_init)(void *, void *), unsigned instance_size,
        void (*instance_init)(void *, void *), int flags);
    void (*type_query)(size_t type, void *query);
    size_t (*type_from_name)(const char *name);
    void *(*type_class_ref)(size_t type);
    size_t (*dbus_proxy_get_type)(void);
    size_t (*secret_service_get_type)(void);
    csecret_list *(*service_search_sync)(void *service, const csecret_schema *schema, void *attributes, int flags, void *cancellable, csecret_error **error);
    int (*service_search_for_dbus_paths_sync)(void *service, const csecret_schema *schema, void *attributes, void *cancellable, char ***unlocked, char ***locked, csecret_error **error);
    int (*service_unlock_dbus_paths_sync)(void *service, const char **paths, void *cancellable, char ***unlocked, csecret_error **error);
    int (*service_store_sync)(void *service, const csecret_schema *schema, void *attributes, const char *collection, const char *label, void *value, void *cancellable, csecret_error **error);
    int (*service_clear_sync)(void *service, const csecret_schema *schema, void *attributes, void *cancellable, csecret_error **error);
    void *(*item_get_attributes)(void *item);
    int (*item_get_locked)(void *item);
    void *(*item_get_secret)(void *item);
    const char *(*value_get)(void *value, size_t *length);
    void *(*value_new)(const char *secret, ssize_t length, const char *content_type);
    void (*value_unref)(void *value);
    void *(*collection_for_alias_sync)(void *service, const char *alias, int flags, void *cancellable, csecret_error **error);
    int (*collection_get_locked)(void *collection);
} csecret_api;

typedef void *(*csecret_initable_new_function)(size_t type, void *cancellable, csecret_error **error, const char *first_property, ...);

// Opens the libsecret at `path` and fills `api`. NULL when every function was found (GLib's,
// GObject's and GIO's through libsecret's own dependencies); otherwise why not, valid until
// the next call. The library stays open for the life of the process. Like libcurl's (see
// ccurl_open), its other symbols are bound as first called.
static inline const char *csecret_open(const char *path, csecret_api *api) {
    void *library = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        return reason != NULL ? reason : "the library could not be opened";
    }
#define CSECRET_FIND(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "a function is missing: " name;
    CSECRET_FIND(hash_table_new, "g_hash_table_new")
    CSECRET_FIND(hash_table_insert, "g_hash_table_insert")
    CSECRET_FIND(hash_table_lookup, "g_hash_table_lookup")
    CSECRET_FIND(hash_table_unref, "g_hash_table_unref")
    CSECRET_FIND(str_hash, "g_str_hash")
    CSECRET_FIND(str_equal, "g_str_equal")
    CSECRET_FIND(list_free, "g_list_free")
    CSECRET_FIND(error_free, "g_error_free")
    CSECRET_FIND(quark_to_string, "g_quark_to_string")
    CSECRET_FIND(free, "g_free")
    CSECRET_FIND(strfreev, "g_strfreev")
    CSECRET_FIND(main_context_new, "g_main_context_new")
    CSECRET_FIND(main_context_push_thread_default, "g_main_context_push_thread_default")
    CSECRET_FIND(main_context_pop_thread_default, "g_main_context_pop_thread_default")
    CSECRET_FIND(main_context_unref, "g_main_context_unref")
    CSECRET_FIND(main_context_iteration, "g_main_context_iteration")
    CSECRET_FIND(object_unref, "g_object_unref")
    CSECRET_FIND(cancellable_new, "g_cancellable_new")
    CSECRET_FIND(cancellable_cancel, "g_cancellable_cancel")
    CSECRET_FIND(dbus_connection_new_for_address_sync, "g_dbus_connection_new_for_address_sync")
    CSECRET_FIND(dbus_connection_close_sync, "g_dbus_connection_close_sync")
    CSECRET_FIND(dbus_error_get_remote_error, "g_dbus_error_get_remote_error")
    CSECRET_FIND(initable_new, "g_initable_new")
    CSECRET_FIND(type_register_static_simple, "g_type_register_static_simple")
    CSECRET_FIND(type_query, "g_type_query")
    CSECRET_FIND(type_from_name, "g_type_from_name")
    CSECRET_FIND(type_class_ref, "g_type_class_ref")
    CSECRET_FIND(dbus_proxy_get_type, "g_dbus_proxy_get_type")
    CSECRET_FIND(secret_service_get_type, "secret_service_get_type")
    CSECRET_FIND(service_search_sync, "secret_service_search_sync")
    CSECRET_FIND(service_search_for_dbus_paths_sync, "secret_service_search_for_dbus_paths_sync")
    CSECRET_FIND(service_unlock_dbus_paths_sync, "secret_service_unlock_dbus_paths_sync")
    CSECRET_FIND(service_store_sync, "secret_service_store_sync")
    CSECRET_FIND(service_clear_sync, "secret_service_clear_sync")
    CSECRET_FIND(item_get_attributes, "secret_item_get_attributes")
    CSECRET_FIND(item_get_locked, "secret_item_get_locked")
    CSECRET_FIND(item_get_secret, "secret_item_get_secret")
    CSECRET_FIND(value_get, "secret_value_get")
    CSECRET_FIND(value_new, "secret_value_new")
    CSECRET_FIND(value_unref, "secret_value_unref")
    CSECRET_FIND(collection_for_alias_sync, "secret_collection_for_alias_sync")
    CSECRET_FIND(collection_get_locked, "secret_collection_get_locked")
#undef CSECRET_FIND
    return NULL;
}

#include "service_type.h"
#include "operations.h"

#endif
