import java.io.BufferedReader;
import java.io.InputStreamReader;

/** Does work on request: each stdin line "work" allocates, "exit" ends. */
public class WaitForDump {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("READY");
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null && !line.equals("exit")) {
            for (int i = 0; i < 10000; i++) sink = new StringBuilder().append(i).toString();
            System.out.println("OK " + line);
            System.out.flush();
        }
    }
}
