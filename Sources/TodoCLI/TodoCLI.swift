// TodoCLI: todoctl's command line. Tokenizing, parsing, help and short options (CommandLine/),
// running a command against the daemon (Runner), tables and human output (Output/), the importers
// (Importers/) and `todoctl sync` (Sync/). Only todoctl, its tests and todobench link it; an engine
// never does (scripts/check-layers). The socket client is TodoRPC, the WHEN and DURATION grammar
// TodoWhen, the config and sync files TodoUserFiles. Never imports TodoStore or the C libraries.
