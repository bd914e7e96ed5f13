import Basics
import FoundationEssentials

/// `har users`: roles from the command line (REV-01). Works on the data folder's database directly, also
/// while `har serve` runs (WAL, one short transaction per change); the server reads roles on every
/// request, so a change applies from the user's next request. Audited as the operator `cli:$USER`.
enum UsersCommand {
    static let usage = """
        Usage:
          har users [--config FILE] list                      every user and role (and configured coordinators)
          har users [--config FILE] grant EMAIL coordinator|admin
          har users [--config FILE] confirm EMAIL [--account ID]
                                                              bind a pending grant to the account of its first
                                                              sign-in: shows it, then asks for its account id
          har users [--config FILE] revoke EMAIL              back to volunteer

        A grant never binds by itself. It becomes a role when the account signs in with exactly the
        granted e-mail and the platform says the account is verified, or when an administrator confirms
        the first sign-in recorded for it (its account id, time and address, listed here) by typing that
        account id at `confirm` (or giving it with --account). The local part of an e-mail keeps its case:
        a grant to Ann@example.org does not bind to a sign-in as ann@example.org.
        """

    static func main(_ arguments: [String]) -> Int32 {
        Command.runOnStores(arguments, usage: usage) { action, stores, configuration in
            try run(
                action, store: stores.review, configured: ReviewSettings.emails(configuration.coordinators),
                actor: Command.operatorActor, now: Date().timeIntervalSince1970)
        }
    }

    static func run(_ action: [String], store: any ReviewStore, configured: Set<String>, actor: String, now: Double)
        throws -> Int32
    {
        switch (action.first, action.count) {
        case ("list", 1):
            let grants = Dictionary(try store.grants().map { ($0.email.lowercased(), $0) }) { first, _ in first }
            var emails = Dictionary(try store.userEmails().map { ($0.lowercased(), $0) }) { first, _ in first }
            for grant in grants.values { emails[grant.email.lowercased()] = grant.email }
            let named = Dictionary(configured.map { ($0.lowercased(), $0) }) { first, _ in first }
            emails.merge(named) { first, _ in first }
            print("email\trole\tsource")
            for key in emails.keys.sorted() {
                let email = emails[key] ?? key
                if let grant = grants[key] {
                    print("\(email)\t\(grant.role.rawValue)\(stateNote(grant))\tgranted by \(grant.grantedBy)")
                } else if named[key] != nil {
                    print("\(email)\tcoordinator (pending)\tconfiguration")
                } else {
                    print("\(email)\tvolunteer\t-")
                }
            }
            return 0
        case ("grant", 3):
            let email = GrantEmail.normalized(action[1])
            guard email.contains("@"), email.utf8.count <= 320 else {
                Command.printError("not an e-mail address: \(action[1])")
                return 64
            }
            guard let role = Role(rawValue: action[2]), role != .volunteer else {
                Command.printError("role must be coordinator or admin")
                return 64
            }
            try store.grant(email: email, role: role, actor: actor, now: now)
            if try store.storedRole(email: email) == nil {
                print(
                    "\(email) is \(role.rawValue), pending: a verified sign-in with this e-mail, or your"
                        + " confirmation (har users confirm), binds it to an account")
            } else {
                print("\(email) is \(role.rawValue)")
            }
            return 0
        case ("confirm", 2), ("confirm", 4):
            return try confirm(action, store: store, actor: actor, now: now, answer: { readLine() })
        case ("revoke", 2):
            let email = GrantEmail.normalized(action[1])
            let before = try store.revoke(email: email, actor: actor, now: now)
            if configured.contains(where: { $0.lowercased() == email.lowercased() }) {
                print("\(email) stays coordinator: named by the coordinators configuration (HAR_COORDINATORS)")
            } else {
                print(before == nil ? "\(email) had no role; nothing revoked" : "\(email) is volunteer")
            }
            return 0
        default:
            print(usage)
            return 64
        }
    }

    /// `confirm EMAIL [--account ID]`: shows the first sign-in waiting, then binds the grant to it only
    /// when the account id given (or typed at the question) is that sign-in's.
    static func confirm(
        _ action: [String], store: any ReviewStore, actor: String, now: Double, answer: () -> String?
    ) throws -> Int32 {
        var rest = Array(action.dropFirst())
        var given: String?
        if rest.count == 3 {
            guard let flag = rest.firstIndex(of: "--account"), flag + 1 < rest.count else {
                print(usage)
                return 64
            }
            given = rest[flag + 1]
            rest.removeSubrange(flag...(flag + 1))
        }
        guard let typed = rest.first else {
            print(usage)
            return 64
        }
        guard
            let grant = try store.grants().first(where: { $0.email.lowercased() == typed.lowercased() }),
            grant.isPending, let account = grant.firstSignInAccount
        else {
            Command.printError("\(typed) has no first sign-in waiting for confirmation")
            return 65
        }
        print("\(grant.email): \(grant.role.rawValue), granted by \(grant.grantedBy), pending")
        print(
            "first sign-in: account \(account), as \(grant.firstSignInEmail ?? grant.email), "
                + "\(grant.firstSignInAt.map { ISO8601.utc(seconds: $0) } ?? "?") from \(grant.firstSignInAddress ?? "?")"
        )
        if given == nil {
            print("Type that account id to confirm it is the person you granted the role to: ", terminator: "")
            given = answer().map(Text.trimmed)
        }
        switch try store.confirm(email: grant.email, accountID: given ?? "", actor: actor, now: now) {
        case .confirmed(let role):
            print("\(grant.email) is \(role.rawValue), held by account \(account)")
            return 0
        case .nothingToConfirm:
            Command.printError("\(typed) has no first sign-in waiting for confirmation")
        case .otherAccount:
            Command.printError("not confirmed: that is not the account id of the first sign-in (\(account))")
        case .otherSpelling(let spelt):
            Command.printError(
                "not confirmed: that sign-in typed \(spelt), not \(grant.email); if it is the same person, "
                    + "grant \(spelt) instead")
        }
        return 65
    }

    /// How the grant is held: pending (and the first sign-in waiting for confirmation, when there is
    /// one), or bound, and how: verified by the platform, or confirmed by an administrator.
    static func stateNote(_ grant: RoleGrant) -> String {
        guard grant.isPending else {
            let when = grant.boundAt.map { " " + ISO8601.utc(seconds: $0) } ?? ""
            switch grant.binding {
            case .verified: return " (verified by the platform\(when))"
            case .confirmed: return " (confirmed by \(grant.boundBy ?? "?")\(when))"
            case .earlier, nil: return " (bound before how was recorded)"
            }
        }
        guard let at = grant.firstSignInAt else { return " (pending: no sign-in yet)" }
        let when = ISO8601.utc(seconds: at)
        let spelt = grant.firstSignInEmail.map { $0 == grant.email ? "" : ", as \($0)" } ?? ""
        return
            " (pending: first sign-in \(when) from \(grant.firstSignInAddress ?? "?")\(spelt), "
            + "account \(grant.firstSignInAccount ?? "?"), to confirm)"
    }
}
