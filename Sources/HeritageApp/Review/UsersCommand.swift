import FoundationEssentials

/// `har users`: roles from the command line (REV-01). Works on the data folder's database directly, also
/// while `har serve` runs (WAL, one short transaction per change); the server reads roles on every
/// request, so a change applies from the user's next request. Audited as the operator `cli:$USER`.
enum UsersCommand {
    static let usage = """
        Usage:
          har users [--config FILE] list                      every user and role (and configured coordinators)
          har users [--config FILE] grant EMAIL coordinator|admin
          har users [--config FILE] revoke EMAIL              back to volunteer
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
            var emails = Set(try store.userEmails().map { $0.lowercased() })
            emails.formUnion(grants.keys)
            emails.formUnion(configured)
            print("email\trole\tsource")
            for email in emails.sorted() {
                if let grant = grants[email] {
                    print("\(email)\t\(grant.role.rawValue)\tgranted by \(grant.grantedBy)")
                } else if configured.contains(email) {
                    print("\(email)\tcoordinator\tconfiguration")
                } else {
                    print("\(email)\tvolunteer\t-")
                }
            }
            return 0
        case ("grant", 3):
            let email = action[1].lowercased()
            guard email.contains("@"), email.utf8.count <= 320 else {
                Command.printError("not an e-mail address: \(action[1])")
                return 64
            }
            guard let role = Role(rawValue: action[2]), role != .volunteer else {
                Command.printError("role must be coordinator or admin")
                return 64
            }
            try store.grant(email: email, role: role, actor: actor, now: now)
            print("\(email) is \(role.rawValue)")
            return 0
        case ("revoke", 2):
            let email = action[1].lowercased()
            let before = try store.revoke(email: email, actor: actor, now: now)
            if configured.contains(email) {
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
}
