package app;

import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Loads and links every class of the runtime image (jrt:/), so that each one
 * passes through the class-file load hook and the verifier.  Linking is forced
 * with getDeclaredFields(), which links the class (verification included)
 * before it reflects.  Usage: Walker [every-Nth-class].  Output depends only on
 * the image, so runs with and without the rewriting agent can be compared.
 */
public final class Walker {
    public static void main(String[] args) throws Exception {
        int every = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        FileSystem fs = FileSystems.getFileSystem(URI.create("jrt:/"));
        List<String> names = new ArrayList<>();
        try (Stream<Path> s = Files.walk(fs.getPath("/modules"))) {
            s.map(p -> p.toString())
                    .filter(p -> p.endsWith(".class") && !p.endsWith("module-info.class"))
                    .sorted()
                    .forEach(p -> {
                        String rel = p.substring(p.indexOf('/', "/modules/".length()) + 1);
                        names.add(rel.substring(0, rel.length() - 6).replace('/', '.'));
                    });
        }
        ClassLoader cl = ClassLoader.getSystemClassLoader();
        int tried = 0, linked = 0;
        Map<String, Integer> errors = new TreeMap<>();
        List<String> verifyErrors = new ArrayList<>();
        for (int i = 0; i < names.size(); i += every) {
            tried++;
            try {
                Class<?> c = Class.forName(names.get(i), false, cl);
                c.getDeclaredFields();
                linked++;
            } catch (VerifyError | ClassFormatError e) {
                verifyErrors.add(names.get(i) + ": " + e);
                errors.merge(e.getClass().getName(), 1, Integer::sum);
            } catch (Throwable t) {
                errors.merge(t.getClass().getName(), 1, Integer::sum);
            }
        }
        System.out.println("classes in image: " + names.size() + ", tried: " + tried
                + ", loaded and linked: " + linked);
        errors.forEach((k, v) -> System.out.println("  " + k + ": " + v));
        verifyErrors.forEach(e -> System.out.println("VERIFY " + e));
        System.exit(verifyErrors.isEmpty() ? 0 : 1);
    }
}
