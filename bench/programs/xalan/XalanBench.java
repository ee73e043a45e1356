import java.io.File;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.stream.StreamResult;
import javax.xml.transform.stream.StreamSource;

/** Apache Xalan (interpretive processor, not the JDK's XSLTC): transform XML. Args: in.xml in.xsl out.html */
public final class XalanBench {
    public static void main(String[] args) throws Exception {
        TransformerFactory f = new org.apache.xalan.processor.TransformerFactoryImpl();
        Transformer t = f.newTransformer(new StreamSource(new File(args[1])));
        t.transform(new StreamSource(new File(args[0])), new StreamResult(new File(args[2])));
        System.out.println("xalan bytes=" + new File(args[2]).length());
    }
}
