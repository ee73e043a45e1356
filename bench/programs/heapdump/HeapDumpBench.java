import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Builds a heap of mixed live objects (about 1 GB at scale 1: records, strings, maps, primitive and
 * object arrays), prints "READY <used-bytes>" and waits at a quiet point until stdin is closed.
 * Args: scale
 */
public final class HeapDumpBench {
    static final class Rec {
        final long id;
        final String name;
        final int[] values;
        final Rec parent;
        double score;

        Rec(long id, String name, int[] values, Rec parent) {
            this.id = id;
            this.name = name;
            this.values = values;
            this.parent = parent;
        }
    }

    public static void main(String[] args) throws Exception {
        double scale = Double.parseDouble(args[0]);
        Random rnd = new Random(7);
        Map<Long, Rec> index = new HashMap<>();
        List<Object> blobs = new ArrayList<>();
        Rec prev = null;
        for (long i = 0; i < (long) (3_300_000 * scale); i++) {
            int[] v = new int[rnd.nextInt(16)];
            prev = new Rec(i, "rec-" + i, v, (i & 7) == 0 ? null : prev);
            prev.score = rnd.nextDouble();
            index.put(i, prev);
        }
        for (int i = 0; i < (int) (130_000 * scale); i++) {
            blobs.add(new byte[1024 + rnd.nextInt(2048)]);
            blobs.add(new long[rnd.nextInt(64)]);
            blobs.add(new Object[] {index.get((long) i), "s" + i, Integer.valueOf(i)});
        }
        System.gc();
        Runtime rt = Runtime.getRuntime();
        System.out.println("READY " + (rt.totalMemory() - rt.freeMemory()));
        System.out.flush();
        while (System.in.read() >= 0) {
            // quiet point: wait for stdin to close
        }
        System.out.println("bye " + index.size() + " " + blobs.size());
    }
}
