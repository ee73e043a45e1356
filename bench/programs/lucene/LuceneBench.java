import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;

/**
 * Lucene 4.10: index a generated corpus (one "id TAB title TAB body" line per document) into a
 * directory, then run queries from several threads at once (the multi-threaded program).
 * Args: corpus.txt index-dir scale threads
 */
public final class LuceneBench {
    public static void main(String[] args) throws Exception {
        int queries = (int) (20_000 * Double.parseDouble(args[2]));
        int threads = Integer.parseInt(args[3]);
        StandardAnalyzer analyzer = new StandardAnalyzer();
        List<String> words = new ArrayList<>();
        try (Directory dir = FSDirectory.open(Paths.get(args[1]).toFile())) {
            IndexWriterConfig cfg = new IndexWriterConfig(Version.LUCENE_4_10_4, analyzer);
            cfg.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
            try (IndexWriter w = new IndexWriter(dir, cfg);
                    BufferedReader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8)) {
                for (String line; (line = in.readLine()) != null; ) {
                    String[] f = line.split("\t", 3);
                    Document d = new Document();
                    d.add(new StringField("id", f[0], Field.Store.YES));
                    d.add(new TextField("title", f[1], Field.Store.YES));
                    d.add(new TextField("body", f[2], Field.Store.NO));
                    w.addDocument(d);
                    if (words.size() < 5000) words.add(f[1].split(" ")[0]);
                }
                w.forceMerge(1);
            }
            try (DirectoryReader reader = DirectoryReader.open(dir)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                List<Future<Long>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int seed = t;
                    results.add(pool.submit(() -> search(searcher, analyzer, words, seed, queries / threads)));
                }
                long hits = 0;
                for (Future<Long> r : results) hits += r.get();
                pool.shutdown();
                System.out.println("lucene docs=" + reader.numDocs() + " hits=" + hits);
            }
        }
    }

    private static long search(IndexSearcher s, StandardAnalyzer a, List<String> words, int seed, int n)
            throws Exception {
        QueryParser parser = new QueryParser("body", a);
        Random rnd = new Random(seed);
        long hits = 0;
        for (int i = 0; i < n; i++) {
            String q = words.get(rnd.nextInt(words.size())) + " AND " + words.get(rnd.nextInt(words.size()))
                    + " OR title:" + words.get(rnd.nextInt(words.size())) + "*";
            hits += s.search(parser.parse(q), 10).totalHits;
        }
        return hits;
    }
}
