import Testing
import TodoCore
import TodoProtocol
import TodoTime

@testable import TodoCLI

/// How todoctl reads an act on many todos: the filter after the command word or before it
/// (`edit`'s only before: after it options are fields), several ids, `--all`, `--yes`, and the
/// refusals (nothing to act on, ids and a filter together).
@Suite struct ActParsingTests {
    let parser = Parser(now: Fixtures.now, timeZone: Fixtures.utc)

    func act(_ arguments: [String]) throws -> ActOptions {
        let command = try parser.parse(arguments).command
        guard case .act(let options) = command else {
            Issue.record("\(arguments) parsed as \(command)")
            return ActOptions(verb: .reopen, targets: .ids([]))
        }
        return options
    }

    func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try parser.parse(arguments)
            return nil
        } catch { return error.message }
    }

    @Test func theFilterGoesAfterTheCommandOrBeforeIt() throws {
        for arguments in [
            ["done", "-c", "買い物", "--due-before", "today"], ["-c", "買い物", "done", "--due-before", "today"],
            ["-c買い物", "--due-before=today", "done"]
        ] {
            let options = try act(arguments)
            #expect(options.verb == .done(stop: false) && !options.yes, "\(arguments)")
            guard case .filter(let list) = options.targets else {
                Issue.record("\(arguments)")
                continue
            }
            #expect(list.query.category == "買い物" && list.query.dueBefore != nil && !list.query.tree, "\(arguments)")
        }
        let stopped = try act(["rm", "--recursive", "-t", "home", "--yes"])
        #expect(stopped.verb == .remove(recursive: true) && stopped.yes)
        // reopen's filter takes the done todos.
        guard case .filter(let reopen) = try act(["reopen", "-c", "x"]).targets else {
            Issue.record("reopen")
            return
        }
        #expect(reopen.query.status == .done)
    }

    @Test func editReadsTheFilterBeforeItAndTheFieldsAfterIt() throws {
        let options = try act(["-t", "home", "edit", "-p", "low", "--yes"])
        guard case .edit(let edit) = options.verb, case .filter(let list) = options.targets else {
            Issue.record("\(options)")
            return
        }
        #expect(edit.priority == .set(.low) && list.query.tags == ["home"] && options.yes)
        let ids = try act(["edit", "5", "6", "9", "-p", "low"])
        #expect(ids.targets == .ids([5, 6, 9]))
        #expect(try act(["-c", "仕事", "edit"]).verb == .editLines)
        #expect(try act(["edit", "5-7"]).verb == .editLines)
        guard case .filter(let all) = try act(["--all", "edit"]).targets else {
            Issue.record("--all edit")
            return
        }
        #expect(
            all.query.category == nil && all.query.tags.isEmpty && all.query.status == .open && !all.query.isFiltered)
        // One id and no fields is still the form (or, without a terminal, nothing to change).
        #expect(refusal(["edit", "5"])?.hasPrefix("nothing to change") == true)
    }

    @Test func severalIdsForTheCommandsThatTookOne() throws {
        #expect(try act(["move", "6", "2", "--top"]) == ActOptions(verb: .move(.position(1)), targets: .ids([6, 2])))
        let snooze = try act(["snooze", "5", "6", "2h"])
        #expect(snooze.targets == .ids([5, 6]) && snooze.verb == .snooze(Fixtures.now.adding(usec: 7_200_000_000)))
        #expect(try act(["snooze", "5", "6"]).targets == .ids([5, 6]))
        let annotate = try act(["annotate", "3", "4", "店が", "閉まっていた"])
        #expect(annotate == ActOptions(verb: .annotate("店が 閉まっていた"), targets: .ids([3, 4])))
        // One id stays the command it was.
        #expect(try parser.parse(["move", "6", "--top"]).command == .move(id: 6, to: .position(1)))
        #expect(try parser.parse(["done", "1", "2"]).command == .complete(ids: [1, 2]))
    }

    @Test func nothingToActOnAndIdsWithAFilterAreRefused() {
        for command in ["done", "reopen", "rm", "snooze"] {
            #expect(refusal([command])?.hasPrefix("missing ID") == true, "\(command)")
        }
        #expect(refusal(["annotate"]) == "missing TEXT")
        #expect(refusal(["done", "1", "-c", "x"])?.contains("not both") == true)
        #expect(refusal(["-c", "x", "move"])?.hasPrefix("missing target") == true)
    }

    /// `dismiss`: always an act (one id too), `--alarm` a number up to 20 or a uid, a filter
    /// before or after the command word.
    @Test func dismissTakesIdsOrAFilterAndOneAlarm() throws {
        #expect(try act(["dismiss", "5"]) == ActOptions(verb: .dismiss(nil), targets: .ids([5])))
        #expect(try act(["dismiss", "5-7", "--alarm", "2"]).verb == .dismiss(.index(2)))
        #expect(try act(["dismiss", "5", "--alarm=019af0c2-7d1e"]).verb == .dismiss(.uid("019af0c2-7d1e")))
        #expect(try act(["dismiss", "5", "--alarm", "21"]).verb == .dismiss(.uid("21")))
        let filtered = try act(["-c", "薬", "dismiss", "--yes"])
        #expect(filtered.verb == .dismiss(nil) && filtered.yes)
        guard case .filter(let list) = filtered.targets else {
            Issue.record("\(filtered)")
            return
        }
        #expect(list.query.category == "薬")
        #expect(refusal(["dismiss"])?.contains("missing ID") == true)
        #expect(refusal(["dismiss", "5", "--alarm", "0"])?.contains("invalid --alarm") == true)
        #expect(refusal(["dismiss", "5", "-c", "薬"])?.contains("not both") == true)
    }
}
