package compat.plugin;

import java.util.function.Supplier;

/** Loaded by compat.app into a module layer of its own. */
public class Plugin implements Supplier<String> {
    public String get() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 1000; i++) sb.append(i % 7);
        return getClass().getModule().getName() + "/" + getClass().getModule().getLayer().modules().size() + "/" + sb.length();
    }
}
