import Testing
@testable import TodoClient
