import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;

/**
 * A real program's heap for the heap-analysis bench: H2 (in-memory database) holding a table of
 * `rows` orders with two indexes. Prints "READY <pid>" and waits until stdin is closed, so the
 * driver can take `jcmd <pid> GC.heap_dump`. Args: rows.
 */
public final class H2Heap {
    public static void main(String[] args) throws SQLException, java.io.IOException {
        int rows = Integer.parseInt(args[0]);
        Random rnd = new Random(42);
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:heap", "sa", "")) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE orders(id INT PRIMARY KEY, customer INT, item VARCHAR(32),"
                        + " qty INT, price DECIMAL(10,2), note VARCHAR(64))");
                s.execute("CREATE INDEX orders_customer ON orders(customer)");
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO orders VALUES(?,?,?,?,?,?)")) {
                for (int i = 0; i < rows; i++) {
                    p.setInt(1, i);
                    p.setInt(2, rnd.nextInt(rows / 50 + 1));
                    p.setString(3, "item-" + rnd.nextInt(5000));
                    p.setInt(4, 1 + rnd.nextInt(20));
                    p.setBigDecimal(5, java.math.BigDecimal.valueOf(rnd.nextInt(100_000), 2));
                    p.setString(6, "order " + i + " for customer " + rnd.nextInt(1000));
                    p.addBatch();
                    if (i % 1000 == 999) p.executeBatch();
                    if (i % 20000 == 19999) c.commit();
                }
                p.executeBatch();
            }
            c.commit();
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            System.in.read();
        }
    }
}
