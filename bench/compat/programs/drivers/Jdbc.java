import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** An embedded SQL database through JDBC: create a table, insert rows in batches, aggregate,
 *  point queries by key. Usage: Jdbc <jdbc url> <rows>. */
public class Jdbc {
    public static void main(String[] args) throws Exception {
        String url = args[0];
        int rows = Integer.parseInt(args[1]);
        long check = 0;
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE orders (id INT PRIMARY KEY, customer INT, amount INT, note VARCHAR(40))");
            }
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO orders VALUES (?, ?, ?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    ins.setInt(1, i);
                    ins.setInt(2, i % 97);
                    ins.setInt(3, (i * 31) % 1000);
                    ins.setString(4, "note " + (i % 13));
                    ins.addBatch();
                    if (i % 1000 == 999 || i == rows - 1) ins.executeBatch();
                }
            }
            c.commit();
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT customer, SUM(amount), COUNT(*) FROM orders GROUP BY customer ORDER BY customer")) {
                while (r.next()) check += r.getLong(2) * 7 + r.getLong(3);
            }
            try (PreparedStatement q = c.prepareStatement("SELECT amount FROM orders WHERE id = ?")) {
                for (int i = 0; i < rows; i += 7) {
                    q.setInt(1, i);
                    try (ResultSet r = q.executeQuery()) {
                        if (r.next()) check += r.getInt(1);
                    }
                }
            }
            c.commit();
        }
        if (url.startsWith("jdbc:derby:")) {
            try {
                DriverManager.getConnection("jdbc:derby:;shutdown=true");
            } catch (SQLException expected) {
                // Derby reports a clean shutdown as an exception
            }
        }
        System.out.println("jdbc rows=" + rows + " check=" + check);
    }
}
