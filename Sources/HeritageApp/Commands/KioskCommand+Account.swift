import Basics
import Dispatch
import FoundationEssentials
import PlatformClient
import Synchronization

extension KioskCommand {
    /// `har kiosk account ID EMAIL`: the kiosk sends with a dedicated platform account of its own (REV-12),
    /// as an administrator sets it on `/review/kiosks`. The password is read from standard input, one
    /// line, never from the command line (where `ps` and the shell's history would show it); the command
    /// signs in with it at once (through the configured platform, or a run of the embedded one on this
    /// data folder, whose sessions `har serve`'s accepts) and keeps the platform's session only.
    static func account(
        _ arguments: [String], store: any KioskStore, configuration: Configuration, actor: String, now: Double,
        password readPassword: () -> String?
    ) throws -> Int32 {
        guard arguments.count == 2, let id = Int64(arguments[0]) else {
            print(usage)
            return 64
        }
        let email = Text.trimmed(arguments[1])
        guard AddressSpec.isValid(email) else {
            Command.printError("not an e-mail address: \(email)")
            return 64
        }
        guard let password = readPassword(), !password.isEmpty,
            password.utf8.count <= SignInForm.maximumPasswordLength
        else {
            Command.printError("give the account's password on standard input, one line")
            return 64
        }
        let clients = try PlatformClients(configuration: configuration, log: Log(), executable: nil)
        defer { clients.embedded?.stop() }
        let platform = clients.web
        let answer = awaiting { try await platform.signIn(email: email, password: password) }
        let session: PlatformSession
        switch answer {
        case .success(let made): session = made
        case .failure(let error):
            Command.printError("the platform did not sign \(email) in: \(error)")
            return 1
        }
        let account = DedicatedAccount(
            email: email, accountID: session.accountID, sessionID: session.sessionID,
            expiresAt: session.expirationTime?.timeIntervalSince1970)
        switch try store.setDedicatedAccount(account, kioskID: id, actor: actor, now: now) {
        case .done:
            let until = account.expiresAt.map { " until " + ISO8601.utc(seconds: $0) } ?? ""
            print(
                "kiosk \(id) sends with its own account \(email); its platform session is kept\(until), the password is not"
            )
            return 0
        case .gone:
            Command.printError("no kiosk \(id) (unknown, or revoked)")
            return 1
        case .personsAccount:
            Command.printError(
                "someone signs in here with \(email): give the kiosk an account of its own, so that its reports are in nobody's list"
            )
            return 1
        }
    }

    /// Runs the sign-in from this synchronous command and waits for it on this thread.
    static func awaiting(_ work: @escaping @Sendable () async throws -> PlatformSession) -> Result<
        PlatformSession, any Error
    > {
        let result = Mutex<Result<PlatformSession, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let value: Result<PlatformSession, any Error>
            do { value = .success(try await work()) } catch { value = .failure(error) }
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .failure(StoreError(.invariant, "the sign-in gave no answer"))
    }
}
