package reducerkit.compat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON as the adapters need it, read with Jackson's streaming parser (the
 * JSON library langchain4j-core depends on): values that keep what they
 * read, so that nothing the kit sent is re-spelled.
 *
 * <p>A value is a {@code Map<String, Object>} (an object; members in the
 * order read, a duplicate member's last value wins, as in the kit), a
 * {@code List<Object>}, a {@code String}, a {@link Num} (a number kept as
 * its literal text: {@code 1e400} and a 30-digit integer stay exact), a
 * {@code Boolean} or {@link #NULL}. No number is ever converted to a double.
 */
final class Json {

    private Json() {}

    /** JSON's {@code null} (a Java null means "absent"). */
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    /** A JSON number as the literal text it was written with. */
    record Num(String text) {}

    /**
     * The parser factory: strict JSON (no NaN, no comments, no trailing
     * commas: Jackson's defaults), nesting to 1000 levels (the kit refuses more than
     * 100), and the length limits lifted so that a large case
     * (spec 8.11: the kit's own limits apply) is never refused here.
     */
    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxStringLength(Integer.MAX_VALUE)
                    .maxNumberLength(Integer.MAX_VALUE)
                    .maxNestingDepth(1000)
                    .maxDocumentLength(-1)
                    .build())
            .build();

    /** Reads the value at the parser's current token (already advanced to it). */
    static Object read(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == null) {
            throw new IOException("unexpected end of input");
        }
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> obj = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    obj.put(name, read(p)); // a duplicate member: the last value wins
                }
                return obj;
            }
            case START_ARRAY: {
                List<Object> arr = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    arr.add(read(p));
                }
                return arr;
            }
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return new Num(p.getText());
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return NULL;
            default:
                throw new IOException("unexpected token " + t);
        }
    }

    /** Parses a whole document: exactly one value and nothing after it. */
    static Object parse(String text) throws IOException {
        try (JsonParser p = FACTORY.createParser(text)) {
            p.nextToken();
            Object v = read(p);
            if (p.nextToken() != null) {
                throw new IOException("extra data after the JSON value");
            }
            return v;
        }
    }

    /** A JSON string literal of {@code s}. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        JsonStringEncoder.getInstance().quoteAsString(s, b);
        return b.append('"').toString();
    }

    /** The JSON text of a value read by {@link #read} (numbers as they were written). */
    static String toText(Object v) {
        StringBuilder b = new StringBuilder();
        write(v, b);
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(Object v, StringBuilder b) {
        if (v instanceof Map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                b.append(quote(e.getKey())).append(':');
                write(e.getValue(), b);
            }
            b.append('}');
        } else if (v instanceof List) {
            b.append('[');
            boolean first = true;
            for (Object x : (List<Object>) v) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                write(x, b);
            }
            b.append(']');
        } else if (v instanceof Num) {
            b.append(((Num) v).text());
        } else if (v instanceof String) {
            b.append(quote((String) v));
        } else if (v instanceof Boolean) {
            b.append(v.toString());
        } else {
            b.append("null");
        }
    }

    /**
     * A JSON number literal's exact value as D × 10^E, D a whole number
     * without trailing zeros (0 for zero), read without any limit on the
     * exponent ({@code 2e99999999999999999999} is read exactly).
     */
    record Decimal(boolean negative, BigInteger digits, BigInteger exponent) {

        static Decimal of(String literal) {
            String s = literal;
            boolean neg = s.startsWith("-");
            if (neg) {
                s = s.substring(1);
            }
            BigInteger exp = BigInteger.ZERO;
            int e = Math.max(s.indexOf('e'), s.indexOf('E'));
            if (e >= 0) {
                String x = s.substring(e + 1);
                exp = new BigInteger(x.startsWith("+") ? x.substring(1) : x);
                s = s.substring(0, e);
            }
            int dot = s.indexOf('.');
            if (dot >= 0) {
                exp = exp.subtract(BigInteger.valueOf(s.length() - dot - 1));
                s = s.substring(0, dot) + s.substring(dot + 1);
            }
            String d = s.replaceFirst("^0+", "");
            if (d.isEmpty()) {
                return new Decimal(neg, BigInteger.ZERO, BigInteger.ZERO);
            }
            int end = d.length();
            while (d.charAt(end - 1) == '0') {
                end--;
            }
            exp = exp.add(BigInteger.valueOf(d.length() - end));
            return new Decimal(neg, new BigInteger(d.substring(0, end)), exp);
        }

        boolean isZero() {
            return digits.signum() == 0;
        }

        /** The power of ten of the leading digit (Python's Decimal.adjusted()). */
        BigInteger adjusted() {
            return exponent.add(BigInteger.valueOf(digits.toString().length() - 1));
        }

        boolean isWhole() {
            return isZero() || exponent.signum() >= 0;
        }

        /** The value of a whole number of at most 19 digits. */
        long longValue() {
            return isZero() ? 0 : digits.multiply(BigInteger.TEN.pow(exponent.intValueExact())).longValueExact()
                    * (negative ? -1 : 1);
        }
    }
}
