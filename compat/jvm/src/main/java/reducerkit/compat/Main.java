package reducerkit.compat;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The command line of every JVM adapter (run through compat/jvm/adapter):
 *
 * <pre>
 *     adapter LIBRARY [--config NAME] [--persistent] [--probe] [--zygote SOCKET]
 * </pre>
 *
 * LIBRARY picks the adapter ({@code langchain4j}, {@code spring-ai}).
 * {@code --persistent} answers one JSON line per input line (spec 8.3);
 * without it the whole of stdin is one request (8.2). {@code --probe}
 * prints {@code {"package": ..., "version": ...}} and exits 0 when the
 * library loads, or says why not on stderr and exits 3. Exit 0 after
 * answering, 2 for a bad command line.
 *
 * <p>{@code --zygote SOCKET}: loads the library, answers one request to warm
 * it up, then serves the adapter processes the kit starts over a Unix socket
 * (compat/run starts it; compat/jvm/adapter relays a process's stdin and
 * stdout to it when COMPAT_ZYGOTE names the socket). Each connection sends
 * its command line as a JSON array on its first line, then the process's
 * standard input; it gets the answers back and is closed when they are
 * done. A JVM cannot fork, so the connections share this process, each on
 * a thread of its own; the adapters keep no state between requests.
 */
public final class Main {

    private Main() {}

    static Wire.Adapter adapter(String name) {
        switch (name) {
            case "langchain4j":
                return new Langchain4jMemory();
            case "spring-ai":
                return new SpringAiMemory();
            default:
                return null;
        }
    }

    /** The version in a jar's META-INF/maven/GROUP/ARTIFACT/pom.properties. */
    static String mavenVersion(Class<?> inJar, String group, String artifact) throws IOException {
        String path = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = inJar.getResourceAsStream(path)) {
            if (in == null) {
                throw new IOException("no " + path + " beside " + inJar.getName());
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        }
    }

    private static void usage(String why) {
        System.err.println("usage: compat/jvm/adapter langchain4j|spring-ai [--config NAME] [--persistent] [--probe]"
                + " [--zygote SOCKET]" + (why == null ? "" : "\n" + why));
        System.exit(2);
    }

    public static void main(String[] argv) throws Exception {
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        // libraries may print or log: only answers go to the real stdout
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        if (argv.length == 0) {
            usage(null);
        }
        Wire.Adapter adapter = adapter(argv[0]);
        if (adapter == null) {
            usage("unknown adapter " + argv[0]);
        }
        boolean persistent = false;
        boolean probe = false;
        String config = adapter.configs().get(0);
        String zygote = null;
        for (int i = 1; i < argv.length; i++) {
            switch (argv[i]) {
                case "--persistent":
                    persistent = true;
                    break;
                case "--probe":
                    probe = true;
                    break;
                case "--config":
                    if (++i >= argv.length) {
                        usage(null);
                    }
                    config = argv[i];
                    break;
                case "--zygote":
                    if (++i >= argv.length) {
                        usage(null);
                    }
                    zygote = argv[i];
                    break;
                default:
                    usage("unknown argument " + argv[i]);
            }
        }
        if (!adapter.configs().contains(config)) {
            usage("unknown --config " + config + " (one of " + String.join(", ", adapter.configs()) + ")");
        }
        if (probe) {
            String version;
            try {
                version = adapter.version();
            } catch (IOException | LinkageError e) {
                System.err.println(adapter.packageName() + " is not installed (" + e + "); run compat/run, which"
                        + " builds compat/jvm with Maven");
                System.exit(3);
                return;
            }
            stdout.write(("{\"package\":" + Json.quote(adapter.packageName()) + ",\"version\":" + Json.quote(version)
                    + "}\n").getBytes(StandardCharsets.UTF_8));
            stdout.flush();
            System.exit(0);
        }
        if (zygote != null) {
            serveZygote(Path.of(zygote), adapter);
            return;
        }
        Wire.serveStream(System.in, stdout, adapter, config, persistent);
        stdout.flush();
        System.exit(0);
    }

    private static void serveZygote(Path socket, Wire.Adapter defaultAdapter) throws IOException {
        // warm up: load the library and compile the common path
        for (String config : defaultAdapter.configs()) {
            for (int i = 0; i < 50; i++) {
                Wire.answer("{\"maxMessages\":1,\"messages\":[{\"role\":\"system\",\"content\":\"s\"},"
                        + "{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\",\"content\":null,"
                        + "\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\","
                        + "\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"r\"},"
                        + "{\"role\":\"assistant\",\"content\":\"a\"}]}", defaultAdapter, config);
            }
        }
        Files.deleteIfExists(socket);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket), 64);
        System.err.println("compat zygote: ready on " + socket);
        while (true) {
            SocketChannel conn = server.accept();
            Thread t = new Thread(() -> serveConnection(conn), "compat-connection");
            t.setDaemon(true);
            t.start();
        }
    }

    private static void serveConnection(SocketChannel conn) {
        try (conn) {
            InputStream in = Channels.newInputStream(conn);
            OutputStream out = Channels.newOutputStream(conn);
            // the header: the process's command line as a JSON array, one line
            java.io.ByteArrayOutputStream header = new java.io.ByteArrayOutputStream();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                header.write(c);
            }
            Object argv = Json.parse(header.toString(StandardCharsets.UTF_8));
            List<String> args = new ArrayList<>();
            for (Object a : (List<?>) argv) {
                args.add((String) a);
            }
            Wire.Adapter adapter = args.isEmpty() ? null : adapter(args.get(0));
            if (adapter == null) {
                return;
            }
            String config = adapter.configs().get(0);
            int i = args.indexOf("--config");
            if (i >= 0 && i + 1 < args.size()) {
                config = args.get(i + 1);
            }
            Wire.serveStream(in, out, adapter, config, args.contains("--persistent"));
            out.flush();
        } catch (IOException | RuntimeException e) {
            System.err.println("compat zygote: a connection ended: " + e);
        }
    }
}
