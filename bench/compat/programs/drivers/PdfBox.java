import java.io.File;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.text.PDFTextStripper;

/** PDFBox: writes a PDF of N pages of text, reads it back and extracts the text.
 *  Usage: PdfBox <pages> <file>. */
public class PdfBox {
    public static void main(String[] args) throws Exception {
        int pages = Integer.parseInt(args[0]);
        File file = new File(args[1]);
        try (PDDocument doc = new PDDocument()) {
            for (int p = 0; p < pages; p++) {
                PDPage page = new PDPage();
                doc.addPage(page);
                try (PDPageContentStream out = new PDPageContentStream(doc, page)) {
                    out.beginText();
                    out.setFont(PDType1Font.HELVETICA, 10);
                    out.newLineAtOffset(50, 750);
                    for (int line = 0; line < 60; line++) {
                        out.showText("Page " + p + " line " + line + ": the quick brown fox jumps over the lazy dog");
                        out.newLineAtOffset(0, -12);
                    }
                    out.endText();
                }
            }
            doc.save(file);
        }
        try (PDDocument doc = PDDocument.load(file)) {
            String text = new PDFTextStripper().getText(doc);
            System.out.println("pdfbox pages=" + doc.getNumberOfPages() + " chars=" + text.length());
        }
    }
}
