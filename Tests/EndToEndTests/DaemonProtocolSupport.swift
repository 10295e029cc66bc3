import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

func errorCode(_ message: JSON) -> Int64? { message["error"]?["code"]?.intValue }

extension JSON {
    subscript(index: Int) -> JSON? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }
}
