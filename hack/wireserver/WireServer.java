// WireServer runs de.bwaldvogel:mongo-java-server with its in-memory backend
// as a stand-alone process, so Go tests can talk the MongoDB wire protocol to
// a real (independent) implementation without a MongoDB binary, which cannot
// be had on the project's machines.
//
// usage: java -cp <classpath> WireServer [host] [port]
//
// Defaults: 127.0.0.1 and port 0 (the kernel picks a free port). Once bound it
// prints exactly one line "LISTENING <host>:<port>" on stdout; callers parse
// it instead of guessing a port. It runs until its stdin reaches EOF or it gets
// SIGTERM/SIGINT. Exiting on EOF means a parent that dies (even by SIGKILL)
// takes the server with it: the kernel closes the parent's end of the pipe.
//
// Built and run by hack/wire-server.sh; see internal/testutil/wireserver.

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;

public final class WireServer {

    // The newest version mongo-java-server 1.47.0 ships (ServerVersion.MONGO_5_0)
    // reports wire version 8, and the Go driver v2 refuses anything below 9
    // ("requires at least 9 (MongoDB 4.4)"). Report MongoDB 6.0, whose wire
    // version is 17. Only the handshake numbers change: the server implements
    // what it implements regardless.
    enum Mongo60 implements MongoVersion {
        INSTANCE;

        @Override
        public List<Integer> getVersionArray() {
            return List.of(6, 0, 0);
        }

        @Override
        public int getWireVersion() {
            return 17;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 2) {
            System.err.println("usage: WireServer [host] [port]");
            System.exit(2);
        }
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 0;

        MongoServer server = new MongoServer(new MemoryBackend().version(Mongo60.INSTANCE));
        server.bind(host, port);
        InetSocketAddress addr = server.getLocalAddress();

        // Runs on SIGTERM/SIGINT (and on the normal exit below): close the
        // listening socket and the connections so clients see a clean EOF.
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow, "wireserver-shutdown"));

        System.out.println("LISTENING " + addr.getHostString() + ":" + addr.getPort());
        System.out.flush();

        waitForEOF(System.in);
        System.exit(0);
    }

    // waitForEOF blocks until the stream ends or fails; its content is ignored.
    private static void waitForEOF(InputStream in) {
        byte[] buf = new byte[256];
        try {
            while (in.read(buf) >= 0) {
                // discard
            }
        } catch (IOException e) {
            // A broken stdin means the parent is gone as well.
        }
    }
}
