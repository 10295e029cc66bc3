import Testing
import TodoProtocol

@Suite struct SocketPathTests {
    @Test func resolvesFlagsThenTheEnvironmentThenDefaults() {
        #expect(SocketPaths.socket(flag: "/x", system: true, environment: ["TODOD_SOCKET": "/y"], uid: 1000) == "/x")
        #expect(
            SocketPaths.socket(flag: nil, system: true, environment: ["TODOD_SOCKET": "/y"], uid: 1000)
                == "/run/todod/todod.sock")
        #expect(SocketPaths.socket(flag: nil, system: false, environment: ["TODOD_SOCKET": "/y"], uid: 0) == "/y")
        #expect(
            SocketPaths.socket(flag: nil, system: true, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000)
                == "/run/todod/todod.sock")
        #expect(SocketPaths.socket(flag: nil, system: false, environment: [:], uid: 0) == "/run/todod/todod.sock")
        #expect(
            SocketPaths.socket(flag: nil, system: false, environment: ["XDG_RUNTIME_DIR": "/run/user/0"], uid: 0)
                == "/run/user/0/todod/todod.sock")
        #expect(
            SocketPaths.socket(flag: nil, system: false, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000)
                == "/run/user/1000/todod/todod.sock")
        #expect(
            SocketPaths.database(flag: nil, environment: ["STATE_DIRECTORY": "/var/lib/todod"], uid: 0, home: "/root")
                == "/var/lib/todod/todos.db")
        #expect(SocketPaths.database(flag: nil, environment: [:], uid: 0, home: "/root") == "/var/lib/todod/todos.db")
        #expect(
            SocketPaths.database(flag: nil, environment: [:], uid: 1000, home: "/home/a")
                == "/home/a/.local/state/todod/todos.db")
        #expect(
            SocketPaths.database(flag: nil, environment: ["XDG_STATE_HOME": "/s"], uid: 1000, home: "/home/a")
                == "/s/todod/todos.db")
        #expect(
            SocketPaths.database(
                flag: nil, environment: ["TODOD_DB": "/d.db", "STATE_DIRECTORY": "/x"], uid: 1000, home: "/h")
                == "/d.db")
    }
}
