/// The version of todod and todoctl, reported by `--version` and `daemon.status`.
public enum TododVersion {
    public static let string = "0.1.0"
}
