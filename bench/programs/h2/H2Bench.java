import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;

/** H2 (embedded, file database): create a table, insert rows, run queries. Args: scale. */
public final class H2Bench {
    public static void main(String[] args) throws SQLException {
        double scale = Double.parseDouble(args[0]);
        int rows = (int) (1_000_000 * scale);
        Random rnd = new Random(42);
        long check = 0;
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:bench", "sa", "")) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS orders");
                s.execute("CREATE TABLE orders(id INT PRIMARY KEY, customer INT, item VARCHAR(32),"
                        + " qty INT, price DECIMAL(10,2))");
                s.execute("CREATE INDEX orders_customer ON orders(customer)");
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO orders VALUES(?,?,?,?,?)")) {
                for (int i = 0; i < rows; i++) {
                    p.setInt(1, i);
                    p.setInt(2, rnd.nextInt(rows / 50 + 1));
                    p.setString(3, "item-" + rnd.nextInt(5000));
                    p.setInt(4, 1 + rnd.nextInt(20));
                    p.setBigDecimal(5, java.math.BigDecimal.valueOf(rnd.nextInt(100_000), 2));
                    p.addBatch();
                    if (i % 1000 == 999) p.executeBatch();
                    if (i % 20000 == 19999) c.commit();
                }
                p.executeBatch();
            }
            c.commit();
            try (Statement s = c.createStatement();
                    ResultSet r = s.executeQuery("SELECT item, COUNT(*), SUM(qty * price) FROM orders"
                            + " GROUP BY item ORDER BY 3 DESC LIMIT 10")) {
                while (r.next()) check += r.getLong(2);
            }
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT COUNT(*), SUM(qty) FROM orders WHERE customer = ?")) {
                for (int i = 0; i < rows / 100; i++) {
                    p.setInt(1, rnd.nextInt(rows / 50 + 1));
                    try (ResultSet r = p.executeQuery()) {
                        r.next();
                        check += r.getLong(2);
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE orders");
            }
            c.commit();
        }
        System.out.println("h2 rows=" + rows + " check=" + check);
    }
}
