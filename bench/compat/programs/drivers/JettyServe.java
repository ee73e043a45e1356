import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.AbstractHandler;

/** Jetty on 127.0.0.1 (a free port), N requests from two client threads, then a clean stop.
 *  Usage: JettyServe <requests>. */
public class JettyServe {
    public static void main(String[] args) throws Exception {
        int requests = Integer.parseInt(args[0]);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new AbstractHandler() {
            @Override
            public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
                    throws IOException {
                int n = Integer.parseInt(req.getParameter("n"));
                StringBuilder body = new StringBuilder();
                for (int i = 0; i < n % 50 + 1; i++) body.append("line ").append(i).append('\n');
                resp.setContentType("text/plain");
                resp.getWriter().write(body.toString());
                base.setHandled(true);
            }
        });
        server.start();
        int port = connector.getLocalPort();
        long[] bytes = new long[2];
        Thread[] clients = new Thread[2];
        for (int c = 0; c < clients.length; c++) {
            int slot = c;
            clients[c] = new Thread(() -> {
                for (int i = slot; i < requests; i += clients.length) bytes[slot] += fetch(port, i);
            });
            clients[c].start();
        }
        for (Thread t : clients) t.join();
        server.stop();
        server.join();
        System.out.println("jetty requests=" + requests + " bytes=" + (bytes[0] + bytes[1]));
    }

    static long fetch(int port, int n) {
        try {
            HttpURLConnection http = (HttpURLConnection) new URL("http://127.0.0.1:" + port + "/?n=" + n).openConnection();
            http.setConnectTimeout(10_000);
            http.setReadTimeout(10_000);
            try (InputStream in = http.getInputStream()) {
                return in.readAllBytes().length;
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
