package app;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
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
 * before it reflects.  Usage: Walker jrt|JAR-DIR [every-Nth-class]; with a
 * directory, all its jars are loaded by one URLClassLoader.  "Walker dump"
 * instead writes all class files of the image to stdout.  Output depends only on
 * the image, so runs with and without the rewriting agent can be compared.
 */
public final class Walker {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("dump")) {
            dump();
            return;
        }
        int every = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        List<String> names = new ArrayList<>();
        ClassLoader cl;
        if (args[0].equals("jrt")) {
            FileSystem fs = FileSystems.getFileSystem(URI.create("jrt:/"));
            try (Stream<Path> s = Files.walk(fs.getPath("/modules"))) {
                s.map(Path::toString)
                        .filter(p -> p.endsWith(".class") && !p.endsWith("module-info.class"))
                        .forEach(p -> names.add(p.substring(p.indexOf('/', 9) + 1)));
            }
            cl = ClassLoader.getSystemClassLoader();
        } else {
            cl = jarLoader(Path.of(args[0]), names);
        }
        names.replaceAll(n -> n.substring(0, n.length() - 6).replace('/', '.'));
        Collections.sort(names);
        int tried = 0, linked = 0;
        Map<String, Integer> errors = new TreeMap<>();
        List<String> verifyErrors = new ArrayList<>();
        for (int i = 0; i < names.size(); i += every) {
            if (i > 0 && names.get(i).equals(names.get(i - 1)))
                continue;
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

    /**
     * Writes every class file of the image to stdout as records of
     * (u2 name length, name, u4 length, bytes), for bci_jdk to read from a pipe.
     */
    private static void dump() throws Exception {
        FileSystem fs = FileSystems.getFileSystem(URI.create("jrt:/"));
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(fs.getPath("/modules"))) {
            s.filter(p -> p.toString().endsWith(".class")).forEach(files::add);
        }
        Collections.sort(files);
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(System.out, 1 << 20))) {
            for (Path p : files) {
                byte[] b = Files.readAllBytes(p);
                out.writeUTF(p.toString());
                out.writeInt(b.length);
                out.write(b);
            }
        }
    }

    /** A loader over every jar in dir (symlinks resolved, duplicates dropped). */
    private static ClassLoader jarLoader(Path dir, List<String> names) throws Exception {
        Set<Path> jars = new TreeSet<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator)
                if (p.toString().endsWith(".jar") && Files.isRegularFile(p))
                    jars.add(p.toRealPath());
        }
        List<URL> urls = new ArrayList<>();
        for (Path j : jars) {
            urls.add(j.toUri().toURL());
            try (JarFile jf = new JarFile(j.toFile())) {
                jf.stream().map(JarEntry::getName)
                        .filter(n -> n.endsWith(".class") && !n.contains("-")
                                && !n.startsWith("META-INF/"))
                        .forEach(names::add);
            }
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }
}
