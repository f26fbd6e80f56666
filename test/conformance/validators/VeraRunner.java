// Test-only runner: validates many PDFs in one JVM (start-up is the slow part) with veraPDF's own
// profiles. Arguments: pairs of <flavour> <file> (flavour as veraPDF names it: 2b, 2u, 3b, 3u, ua1).
// Prints one JSON line per file: {file, flavour, compliant, rules, failed: [{rule, message, count}]}.
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.verapdf.gf.foundry.VeraGreenfieldFoundryProvider;
import org.verapdf.pdfa.Foundries;
import org.verapdf.pdfa.PDFAParser;
import org.verapdf.pdfa.PDFAValidator;
import org.verapdf.pdfa.flavours.PDFAFlavour;
import org.verapdf.pdfa.results.TestAssertion;
import org.verapdf.pdfa.results.ValidationResult;

public class VeraRunner {
  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  public static void main(String[] args) throws Exception {
    VeraGreenfieldFoundryProvider.initialise();
    for (int i = 0; i + 1 < args.length; i += 2) {
      PDFAFlavour flavour = PDFAFlavour.fromString(args[i]);
      String file = args[i + 1];
      StringBuilder out = new StringBuilder("{\"file\":" + json(file) + ",\"flavour\":" + json(args[i]));
      try (InputStream in = new FileInputStream(file);
           PDFAParser parser = Foundries.defaultInstance().createParser(in, flavour)) {
        PDFAValidator validator = Foundries.defaultInstance().createValidator(flavour, false);
        ValidationResult result = validator.validate(parser);
        Map<String, int[]> counts = new LinkedHashMap<>();
        Map<String, String> messages = new LinkedHashMap<>();
        for (TestAssertion a : result.getTestAssertions()) {
          if (a.getStatus() != TestAssertion.Status.FAILED) continue;
          String rule = a.getRuleId().getSpecification().getId() + " " + a.getRuleId().getClause() + "-" + a.getRuleId().getTestNumber();
          counts.computeIfAbsent(rule, k -> new int[1])[0]++;
          messages.putIfAbsent(rule, a.getMessage() + " @ " + a.getLocation().getContext());
        }
        out.append(",\"compliant\":").append(result.isCompliant());
        out.append(",\"rules\":").append(validator.getProfile().getRules().size());
        out.append(",\"failed\":[");
        boolean first = true;
        for (Map.Entry<String, int[]> e : counts.entrySet()) {
          if (!first) out.append(',');
          first = false;
          out.append("{\"rule\":").append(json(e.getKey())).append(",\"count\":").append(e.getValue()[0])
              .append(",\"message\":").append(json(messages.get(e.getKey()))).append('}');
        }
        out.append("]}");
      } catch (Exception e) {
        out.append(",\"compliant\":false,\"error\":").append(json(String.valueOf(e))).append('}');
      }
      System.out.println(out);
    }
  }
}
