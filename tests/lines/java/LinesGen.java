/** Loaded once per LinesProg.OwnLoader and unloaded with it. */
public class LinesGen implements Runnable {
    @Override
    public void run() {
        LinesProg.sink = new Object[3]; // ALLOC gen_run
        helper(); // CALL run_helper
    }

    private void helper() {
        LinesProg.sink = new long[2]; // ALLOC gen_helper
    }
}
