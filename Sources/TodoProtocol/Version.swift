/// The version of todod and todoctl, reported by `--version` and `daemon.status`.
package enum TododVersion {
    package static let string = "0.1.0"
}
