package compat.app;

import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** A small modular application. Its first argument picks the module feature on top of a fixed
 *  workload: plain, layer (boots a plugin module in a new ModuleLayer), opens (deep reflection
 *  into java.base, needs --add-opens) or patch (a class added by --patch-module). */
public class Main {
    public static void main(String[] args) throws Exception {
        String feature = args[0];
        int n = Integer.parseInt(args[1]);
        Logger.getLogger("compat").fine("start");
        Map<Integer, List<String>> groups = IntStream.range(0, n).mapToObj(i -> "m" + (i * 7919 % 1013))
                .collect(Collectors.groupingBy(String::length));
        String extra = switch (feature) {
            case "layer" -> plugin(Path.of(args[2]));
            case "opens" -> opens();
            case "patch" -> ((Supplier<?>) Class.forName("compat.app.Patched").getDeclaredConstructor().newInstance()).get().toString();
            default -> "plain";
        };
        System.out.println("modular " + Main.class.getModule().getName() + " groups=" + groups.keySet()
                + " sizes=" + groups.values().stream().map(List::size).toList() + " " + extra);
    }

    static String plugin(Path dir) throws Exception {
        ModuleLayer parent = ModuleLayer.boot();
        Configuration cf = parent.configuration().resolve(ModuleFinder.of(dir), ModuleFinder.of(), Set.of("compat.plugin"));
        ModuleLayer layer = parent.defineModulesWithOneLoader(cf, ClassLoader.getSystemClassLoader());
        Class<?> c = layer.findLoader("compat.plugin").loadClass("compat.plugin.Plugin");
        return "layer:" + ((Supplier<?>) c.getDeclaredConstructor().newInstance()).get();
    }

    static String opens() throws Exception {
        Field coder = String.class.getDeclaredField("coder");
        coder.setAccessible(true);
        return "opens:coder=" + coder.getByte("abc");
    }
}
