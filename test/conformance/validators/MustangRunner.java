// Test-only runner: validates many e-invoices (PDF and embedded XML) in one JVM with Mustang's
// ZUGFeRDValidator. Arguments: files. Prints one JSON line per file: {file, valid, report}.
import org.mustangproject.validator.ZUGFeRDValidator;

public class MustangRunner {
  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  public static void main(String[] args) {
    for (String file : args) {
      String report;
      try {
        report = new ZUGFeRDValidator().validate(file);
      } catch (Exception e) {
        report = "<error>" + e + "</error>";
      }
      boolean valid = report.contains("<summary status=\"valid\"");
      System.out.println("{\"file\":" + json(file) + ",\"valid\":" + valid + ",\"report\":" + json(report) + "}");
    }
  }
}
