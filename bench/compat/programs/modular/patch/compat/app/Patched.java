package compat.app;

import java.util.function.Supplier;

/** Added to compat.app at run time by --patch-module. */
public class Patched implements Supplier<String> {
    public String get() {
        return "patched:" + getClass().getModule().getName();
    }
}
