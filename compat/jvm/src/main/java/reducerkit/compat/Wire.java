package reducerkit.compat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What every JVM compat adapter shares: runner protocol 1 of reducer-kit
 * (spec/spec.md section 8) and protocol 2 (section 13: token budgets,
 * request ids, the {@code unsupported} answer), and the rule that kept
 * messages go back exactly as they came. The same contract as
 * compat/python/compat_wire.py, in Java.
 *
 * <p>An adapter implements {@link Adapter}: its {@code reduce} gets a
 * {@link Request} and returns a list whose entries are {@link Message}s of
 * the request (the library kept that message: it is written back as the
 * exact JSON text it was read as, a slice of the request line, so member
 * order, number spelling and members the library has no place for all
 * survive) or {@code String}s (the JSON text of a message the library made).
 * Throwing {@link Unsupported} answers {@code {"id": N, "unsupported": why}}
 * (protocol 2; {@code {"error": why}} without an id); {@link BadRequest} and
 * any exception of the library answer {@code {"error": "..."}}, judged by
 * the kit ({@code valid-output}), never a crash.
 *
 * <p>Messages are read from their {@code role} member (the OpenAI Chat
 * Completions and canonical formats): lowercased, {@code developer} read as
 * {@code system}; the first system message is the pinned one.
 */
final class Wire {

    private Wire() {}

    /** The request is malformed (answered {@code {"error": ...}}). */
    static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    /** The library cannot express the request (protocol 2 {@code unsupported}). */
    static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message);
        }
    }

    /** An adapter: one library's reducer behind the protocol. */
    interface Adapter {
        /** The library's name as the manifest gives it (compat/adapters.json {@code library}). */
        String packageName();

        /** The installed library's version, read from its jar. */
        String version() throws IOException;

        /** The configurations {@code --config} accepts; the first is the default. */
        List<String> configs();

        /** Reduces one request under configuration {@code request.config}. */
        List<Object> reduce(Request request) throws Exception;
    }

    /**
     * One message of a request: {@code raw} the parsed object (for mapping
     * into the library), {@code text} its exact JSON text (written back when
     * kept), {@code index} its position in {@code messages}, {@code role}
     * lowercased ({@code developer} read as {@code system}), {@code pinned}
     * whether it is the pinned system message, {@code tokens} its cost under
     * a token budget (1 under a message budget).
     */
    static final class Message {
        final Map<String, Object> raw;
        final String text;
        final int index;
        final String role;
        boolean pinned;
        long tokens = 1;

        Message(Map<String, Object> raw, String text, int index, String role) {
            this.raw = raw;
            this.text = text;
            this.index = index;
            this.role = role;
        }

        @Override
        public String toString() {
            return "Message(" + index + ", " + role + ")";
        }
    }

    /** The kind of budget a request carries (spec section 2, §11). */
    enum BudgetKind { MESSAGES, TOKENS }

    /**
     * A parsed request. {@code budget} is maxMessages or maxTokens
     * ({@link Long#MAX_VALUE}: no limit); {@code countPinned} whether the
     * pinned system message's cost counts (protocol 2, default false);
     * {@code summary} and {@code summaryTokens} as the kit sends them;
     * {@code config} the adapter's configuration.
     */
    static final class Request {
        final List<Message> messages = new ArrayList<>();
        Message pinned;
        BudgetKind budgetKind;
        long budget;
        boolean countPinned;
        boolean summary;
        long summaryTokens = 1;
        String config;

        /**
         * What a message costs against the budget: under protocol 1 one per
         * message, under a token budget its entry of {@code tokens}; the
         * pinned system message 0 unless {@code countPinned}.
         */
        long cost(Message m) {
            if (m.pinned && !countPinned) {
                return 0;
            }
            return m.tokens;
        }

        /** Every message but the pinned system message. */
        List<Message> unpinned() {
            List<Message> out = new ArrayList<>();
            for (Message m : messages) {
                if (!m.pinned) {
                    out.add(m);
                }
            }
            return out;
        }

        /**
         * {@code out} (what a library kept, the pinned system message held
         * aside) with the pinned system message put back at its original
         * place among the kept messages: first, unless the history had
         * messages before it (a message the library made counts as later).
         */
        List<Object> withPinned(List<Object> out) {
            if (pinned == null) {
                return out;
            }
            int at = 0;
            while (at < out.size() && out.get(at) instanceof Message && ((Message) out.get(at)).index < pinned.index) {
                at++;
            }
            List<Object> res = new ArrayList<>(out.subList(0, at));
            res.add(pinned);
            res.addAll(out.subList(at, out.size()));
            return res;
        }
    }

    /** Parsing of a request line; {@code id} is the raw id value, or null. */
    static final class Parsed {
        Object id;
        Request request;
    }

    private static final Object ABSENT = new Object();

    /**
     * A budget as the kit reads one (spec section 2): a JSON number whose
     * value is a whole number of at least 1; one above 10^18 means no limit.
     * The adapter checks this before calling the library, as any caller
     * turning a wire request into the library's integer knob has to.
     */
    static long parseBudget(Object value, String name) throws BadRequest {
        BadRequest bad = new BadRequest(name + " must be an integer >= 1, got "
                + (value == null ? "nothing" : Json.toText(value)));
        if (!(value instanceof Json.Num)) {
            throw bad;
        }
        Json.Decimal d = Json.Decimal.of(((Json.Num) value).text());
        if (d.isZero() || d.negative() || d.adjusted().signum() < 0) {
            throw bad; // below 1
        }
        if (d.adjusted().compareTo(BigInteger.valueOf(18)) > 0) {
            return Long.MAX_VALUE;
        }
        if (!d.isWhole()) {
            throw bad;
        }
        return d.longValue();
    }

    /** A non-negative whole number (a token cost); above 10^18 read as Long.MAX_VALUE. */
    static long parseCount(Object value, String name) throws BadRequest {
        BadRequest bad = new BadRequest(name + " must be an integer >= 0, got "
                + (value == null ? "nothing" : Json.toText(value)));
        if (!(value instanceof Json.Num)) {
            throw bad;
        }
        Json.Decimal d = Json.Decimal.of(((Json.Num) value).text());
        if (d.isZero()) {
            return 0;
        }
        if (d.negative() || !d.isWhole()) {
            throw bad;
        }
        if (d.adjusted().compareTo(BigInteger.valueOf(18)) > 0) {
            return Long.MAX_VALUE;
        }
        return d.longValue();
    }

    private static String asciiLower(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(c >= 'A' && c <= 'Z' ? (char) (c + 32) : c);
        }
        return b.toString();
    }

    /**
     * Parses one request line. The {@code messages} array is read element by
     * element with the parser's token locations, so that each message's
     * exact text is the slice of the line between its braces.
     */
    static Parsed parse(String line, Parsed out) throws IOException, BadRequest {
        Map<String, Object> top = new java.util.LinkedHashMap<>();
        List<Object[]> spans = null; // per message: {value, start, end}
        try (JsonParser p = Json.FACTORY.createParser(line)) {
            JsonToken t = p.nextToken();
            if (t != JsonToken.START_OBJECT) {
                Json.read(p);
                if (p.nextToken() != null) {
                    throw new IOException("extra data after the JSON value");
                }
                throw new BadRequest("the request is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                if (name.equals("messages") && v == JsonToken.START_ARRAY) {
                    List<Object[]> list = new ArrayList<>();
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        long start = p.currentTokenLocation().getCharOffset();
                        Object value = Json.read(p);
                        long end = p.currentTokenLocation().getCharOffset() + 1;
                        list.add(new Object[] {value, start, end});
                    }
                    spans = list;
                    top.put(name, ABSENT); // read from spans
                } else {
                    Object value = Json.read(p);
                    top.put(name, value);
                    if (name.equals("messages")) {
                        spans = null;
                    }
                }
            }
            if (p.nextToken() != null) {
                throw new IOException("extra data after the JSON value");
            }
        }
        out.id = top.get("id");
        Request r = new Request();
        if (spans == null) {
            throw new BadRequest("`messages` is not an array");
        }
        for (int i = 0; i < spans.size(); i++) {
            Object value = spans.get(i)[0];
            Object role = value instanceof Map ? ((Map<?, ?>) value).get("role") : null;
            if (!(role instanceof String)) {
                throw new BadRequest("message " + i + " has no string `role`");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> obj = (Map<String, Object>) value;
            String lower = asciiLower((String) role);
            String text = line.substring((int) (long) (Long) spans.get(i)[1], (int) (long) (Long) spans.get(i)[2]);
            r.messages.add(new Message(obj, text, i, lower.equals("developer") ? "system" : lower));
        }
        for (Message m : r.messages) {
            if (m.role.equals("system")) {
                m.pinned = true;
                r.pinned = m;
                break;
            }
        }
        boolean hasTokens = top.containsKey("maxTokens");
        boolean hasMessages = top.containsKey("maxMessages");
        if (hasTokens && hasMessages) {
            throw new BadRequest("the request has both maxMessages and maxTokens (exactly one is allowed)");
        }
        if (hasMessages || !hasTokens) {
            r.budgetKind = BudgetKind.MESSAGES;
            r.budget = parseBudget(top.get("maxMessages"), "maxMessages");
        } else {
            r.budgetKind = BudgetKind.TOKENS;
            r.budget = parseBudget(top.get("maxTokens"), "maxTokens");
            Object tokens = top.get("tokens");
            if (!(tokens instanceof List) || ((List<?>) tokens).size() != r.messages.size()) {
                throw new BadRequest("`tokens` must be an array with one cost per message");
            }
            for (Message m : r.messages) {
                m.tokens = parseCount(((List<?>) tokens).get(m.index), "tokens[" + m.index + "]");
            }
            Object cp = top.getOrDefault("countPinned", Boolean.FALSE);
            if (!(cp instanceof Boolean)) {
                throw new BadRequest("`countPinned` must be true or false");
            }
            r.countPinned = (Boolean) cp;
            if (r.countPinned && r.pinned != null && r.pinned.tokens > r.budget) {
                throw new BadRequest("countPinned: the pinned system message alone costs " + r.pinned.tokens
                        + " > maxTokens " + r.budget);
            }
        }
        Object summary = top.getOrDefault("summary", Boolean.FALSE);
        if (!(summary instanceof Boolean)) {
            throw new BadRequest("`summary` must be true or false");
        }
        r.summary = (Boolean) summary;
        if (top.containsKey("summaryTokens")) {
            r.summaryTokens = parseCount(top.get("summaryTokens"), "summaryTokens");
        }
        out.request = r;
        return out;
    }

    /** {@code body} (the text of a JSON object) with the request id first, when there is one. */
    static String withId(Object id, String body) {
        if (id == null) {
            return body;
        }
        String idText = Json.toText(id);
        return body.equals("{}") ? "{\"id\":" + idText + "}" : "{\"id\":" + idText + "," + body.substring(1);
    }

    private static String error(String message) {
        return "{\"error\":" + Json.quote(message) + "}";
    }

    /** One answer line (without its newline) for one request line. */
    static String answer(String line, Adapter adapter, String config) {
        Parsed parsed = new Parsed();
        try {
            parse(line, parsed);
        } catch (BadRequest e) {
            return withId(parsed.id, error(e.getMessage()));
        } catch (IOException | RuntimeException e) {
            String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            return error(m.split("\n", 2)[0]);
        }
        Request request = parsed.request;
        request.config = config;
        try {
            List<Object> out = adapter.reduce(request);
            StringBuilder b = new StringBuilder("{\"messages\":[");
            for (int i = 0; i < out.size(); i++) {
                if (i > 0) {
                    b.append(',');
                }
                Object e = out.get(i);
                b.append(e instanceof Message ? ((Message) e).text : (String) e);
            }
            return withId(parsed.id, b.append("]}").toString());
        } catch (Unsupported e) {
            if (parsed.id == null) {
                return error(e.getMessage());
            }
            return withId(parsed.id, "{\"unsupported\":" + Json.quote(e.getMessage()) + "}");
        } catch (BadRequest e) {
            return withId(parsed.id, error(e.getMessage()));
        } catch (Exception | LinkageError | StackOverflowError e) {
            // the library refused the request
            String text = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (text.length() > 2000) {
                text = text.substring(0, 2000);
            }
            System.err.println("compat adapter: the library raised " + (text.length() > 500 ? text.substring(0, 500) : text));
            return withId(parsed.id, error("the library raised " + text));
        }
    }

    private static String decode(byte[] bytes, int len) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes, 0, len))
                .toString();
    }

    private static String answerBytes(byte[] bytes, int len, Adapter adapter, String config) {
        String line;
        try {
            line = decode(bytes, len);
        } catch (CharacterCodingException e) {
            return error("the request is not UTF-8");
        }
        return answer(line, adapter, config);
    }

    /**
     * Serves one stream pair: in persistent mode one answer line per
     * non-blank input line, flushed (spec 8.3); otherwise the whole input
     * is one request (8.2).
     */
    static void serveStream(InputStream in, OutputStream out, Adapter adapter, String config, boolean persistent)
            throws IOException {
        if (!persistent) {
            byte[] all = in.readAllBytes();
            out.write((answerBytes(all, all.length, adapter, config) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            return;
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        byte[] chunk = new byte[65536];
        while (true) {
            int n = in.read(chunk);
            if (n < 0) {
                return;
            }
            int from = 0;
            for (int i = 0; i < n; i++) {
                if (chunk[i] == '\n') {
                    buf.write(chunk, from, i - from);
                    from = i + 1;
                    byte[] line = buf.toByteArray();
                    buf.reset();
                    if (new String(line, StandardCharsets.ISO_8859_1).isBlank()) {
                        continue;
                    }
                    out.write((answerBytes(line, line.length, adapter, config) + "\n")
                            .getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
            buf.write(chunk, from, n - from);
        }
    }
}
