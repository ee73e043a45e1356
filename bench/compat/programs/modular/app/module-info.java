module compat.app {
    requires java.logging;
    exports compat.app;
}
