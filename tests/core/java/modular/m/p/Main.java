package p;

import java.util.ArrayList;
import java.util.List;

/* The smallest modular application: launched with --module-path and -m. */
public class Main {
    public static void main(String[] args) {
        List<Integer> list = new ArrayList<>();
        for (int i = 0; i < 100000; i++) list.add(i);
        System.out.println(list.size());
    }
}
