// todoctl: the command-line client of todod. Being written: it does nothing yet.
import Foundation
FileHandle.standardError.write(Data("todoctl: not built yet\n".utf8))
exit(69)
