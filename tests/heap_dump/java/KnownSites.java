import java.util.ArrayList;
import java.util.List;

/* Objects made at known source lines (the SITE markers), all kept live to
 * the exit dump: a heap=all dump must cite, for each of them, a trace whose
 * top frame is that line. Each Holder references one object of every site.
 * Args: number of Holders. */
public class KnownSites {
    static final class Item {
        final int v;

        Item(int v) {
            this.v = v;
        }
    }

    static final class Holder {
        Item item, made;
        int[] ints, copy;
        Item[] items;
        long[][] grid;
        Integer boxed;
    }

    static final List<Holder> keep = new ArrayList<>();

    static Item make(int i) {
        return new Item(-i); // SITE make
    }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            Holder h = new Holder(); // SITE holder
            h.item = new Item(i); // SITE item
            h.made = make(i); // CALL made
            h.ints = new int[i % 5 + 1]; // SITE ints
            h.copy = h.ints.clone(); // SITE copy
            h.items = new Item[] {h.item, h.made}; // SITE items
            h.grid = new long[2][3]; // SITE grid
            h.boxed = 100_000 + i; // SITE boxed
            keep.add(h);
        }
        System.out.println("kept " + keep.size());
    }
}
