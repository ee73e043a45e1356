import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The bundled demo: a small word-index builder with an allocation hot spot
 * (Posting objects kept in a live index, temporary strings thrown away) and
 * two CPU hot spots (tokenising and scoring), run on a few threads.
 */
public class Demo {
    static final class Posting {
        final int doc;
        final int position;

        Posting(int doc, int position) {
            this.doc = doc;
            this.position = position;
        }
    }

    static final String[] WORDS = {
        "heap", "sites", "trace", "sample", "thread", "class", "object", "array", "profile",
        "agent", "dump", "monitor", "cutoff", "depth", "binary", "ascii", "record", "frame"
    };

    static String makeDocument(Random random, int words) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < words; i++) {
            if (i > 0) sb.append(' ');
            sb.append(WORDS[random.nextInt(WORDS.length)]);
        }
        return sb.toString();
    }

    static List<String> tokenize(String text) {
        List<String> tokens = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == ' ') {
                tokens.add(text.substring(start, i));
                start = i + 1;
            }
        }
        return tokens;
    }

    static double score(List<Posting> postings) {
        double s = 0;
        for (Posting p : postings) s += Math.log1p(p.position) / (1 + p.doc % 7);
        return s;
    }

    static Map<String, List<Posting>> indexChunk(int seed, int docs) {
        Random random = new Random(seed);
        Map<String, List<Posting>> index = new HashMap<>();
        for (int d = 0; d < docs; d++) {
            List<String> tokens = tokenize(makeDocument(random, 200));
            for (int pos = 0; pos < tokens.size(); pos++)
                index.computeIfAbsent(tokens.get(pos), k -> new ArrayList<>())
                        .add(new Posting(seed * docs + d, pos));
        }
        return index;
    }

    public static void main(String[] args) throws Exception {
        int chunks = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Map<String, List<Posting>>>> parts = new ArrayList<>();
        for (int c = 0; c < chunks; c++) {
            final int seed = c;
            parts.add(pool.submit(() -> indexChunk(seed, 2000)));
        }
        double total = 0;
        int postings = 0;
        for (Future<Map<String, List<Posting>>> part : parts) {
            for (List<Posting> list : part.get().values()) {
                total += score(list);
                postings += list.size();
            }
        }
        pool.shutdown();
        System.out.printf("indexed %d postings, score %.1f%n", postings, total);
    }
}
