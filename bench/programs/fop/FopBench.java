import java.io.BufferedOutputStream;
import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.sax.SAXResult;
import javax.xml.transform.stream.StreamSource;
import org.apache.fop.apps.Fop;
import org.apache.fop.apps.FopFactory;
import org.apache.xmlgraphics.util.MimeConstants;

/** Apache FOP: render an XSL-FO document to PDF. Args: input.fo output.pdf */
public final class FopBench {
    public static void main(String[] args) throws Exception {
        FopFactory factory = FopFactory.newInstance(new File(".").toURI());
        Path out = Path.of(args[1]);
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(out))) {
            Fop fop = factory.newFop(MimeConstants.MIME_PDF, os);
            Transformer t = TransformerFactory.newInstance().newTransformer();
            t.transform(new StreamSource(new File(args[0])), new SAXResult(fop.getDefaultHandler()));
            System.out.println("fop pages=" + fop.getResults().getPageCount() + " bytes=" + Files.size(out));
        }
    }
}
