/// The client side of todod: command-line parsing, WHEN/DURATION parsing, table rendering and the
/// socket client `todoctl` is built from. Never imports TodoStore or the C libraries.
public enum TodoClient {}
