#ifndef GITBAY_SYNC_CSECRET_SERVICE_TYPE_H
#define GITBAY_SYNC_CSECRET_SERVICE_TYPE_H

// A SecretService that talks over the D-Bus connection it is given.
//
// libsecret's own SecretService cannot: its GObject constructor (libsecret 0.20 and others)
// sets "g-bus-type" to the session bus after the caller's properties, so every instance
// reaches the process's one shared session bus, found once from the process's environment.
// This subclass changes only that: its constructor is GDBusProxy's, so the caller's
// "g-connection", "g-name" and "g-object-path" stand. Everything else, prompts and sessions
// included, is libsecret's SecretService as it is.
//
// What it relies on is GObject's stable ABI: GObjectClass's `constructor` is the third field
// (after the GTypeClass and the construct-property list) and GTypeQuery's layout.
typedef struct {
    size_t g_type;
    void *construct_properties;
    void *(*constructor)(size_t type, unsigned count, void *properties);
} csecret_object_class_head;

typedef struct {
    size_t type;
    const char *type_name;
    unsigned class_size;
    unsigned instance_size;
} csecret_type_query;

typedef void *(*csecret_constructor_function)(size_t type, unsigned count, void *properties);

// Where GDBusProxy's constructor is kept for the subclass, set before the type is registered.
// A variable inside a function rather than at file scope: Swift's importer emits a header's
// inline functions, not its file-scope variables.
static inline csecret_constructor_function *csecret_proxy_constructor_slot(void) {
    static csecret_constructor_function constructor;
    return &constructor;
}

static inline void *csecret_service_constructor(size_t type, unsigned count, void *properties) {
    return (*csecret_proxy_constructor_slot())(type, count, properties);
}

static inline void csecret_service_class_init(void *class_pointer, void *data) {
    (void)data;
    ((csecret_object_class_head *)class_pointer)->constructor = csecret_service_constructor;
}

// The subclass's GType, registered on first use (the caller serializes calls); 0 if GObject
// refused it.
static inline size_t csecret_service_type(const csecret_api *api) {
    static const char name[] = "GitbaySyncSecretService";
    size_t known = api->type_from_name(name);
    if (known != 0) return known;
    size_t parent = api->secret_service_get_type();
    csecret_object_class_head *proxy_class = api->type_class_ref(api->dbus_proxy_get_type());
    *csecret_proxy_constructor_slot() = proxy_class->constructor;
    csecret_type_query query = {0, NULL, 0, 0};
    api->type_query(parent, &query);
    if (query.class_size == 0) return 0;
    return api->type_register_static_simple(
        parent, name, query.class_size, csecret_service_class_init, query.instance_size, NULL, 0);
}

#endif
