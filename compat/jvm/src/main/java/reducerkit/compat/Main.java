package reducerkit.compat;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * The command line of every JVM adapter (run through compat/jvm/adapter):
 *
 * <pre>
 *     adapter LIBRARY [--config NAME] [--persistent] [--probe]
 * </pre>
 *
 * LIBRARY picks the adapter ({@code langchain4j}, {@code spring-ai}).
 * {@code --persistent} answers one JSON line per input line (spec 8.3);
 * without it the whole of stdin is one request (8.2). {@code --probe}
 * prints {@code {"package": ..., "version": ...}} and exits 0 when the
 * library loads, or says why not on stderr and exits 3. Exit 0 after
 * answering, 2 for a bad command line.
 *
 * <p>No zygote: one process answers every request of a persistent run, and
 * the kit restarts a reducer only after a protocol failure (a crash, a
 * timeout, broken JSON), so a certify run starts one JVM (about 1.5 s on
 * the 2-core machine); compat/run starts the JVM adapters without one.
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
                + (why == null ? "" : "\n" + why));
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
        Wire.serveStream(System.in, stdout, adapter, config, persistent);
        stdout.flush();
        System.exit(0);
    }
}
