module compat.plugin {
    requires compat.app;
    exports compat.plugin;
}
