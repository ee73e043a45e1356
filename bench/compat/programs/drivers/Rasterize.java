import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.batik.transcoder.TranscoderInput;
import org.apache.batik.transcoder.TranscoderOutput;
import org.apache.batik.transcoder.image.PNGTranscoder;

/** Batik: renders an SVG file to PNG N times (the rasterizer's own Main installs a security
 *  manager, which JDK 17+ refuses). Usage: Rasterize <svg> <png> <times>. */
public class Rasterize {
    public static void main(String[] args) throws Exception {
        int times = Integer.parseInt(args[2]);
        for (int i = 0; i < times; i++) {
            try (InputStream in = new FileInputStream(args[0]); OutputStream out = new FileOutputStream(args[1])) {
                new PNGTranscoder().transcode(new TranscoderInput(in), new TranscoderOutput(out));
            }
        }
        System.out.println("batik rendered " + times);
    }
}
