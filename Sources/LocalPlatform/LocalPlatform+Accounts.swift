import Basics
import FoundationEssentials
import HTTPServer
import PlatformClient

extension LocalPlatform {
    /// Shortest password a new account may have (characters).
    public static let minimumPasswordLength = 8

    /// `POST account/session`: signs in, or signs up an e-mail never seen before.
    func signIn(_ request: Request) throws(Refusal) -> Response {
        let caller = try authenticate(request, body: .json, needsSession: false)
        let fields = JSONFields(object: try JSONValue.object(from: request.body))
        try fields.refuseUnknown(allowed: ["email_address", "password"])
        let typed = try fields.requiredString("email_address")
        let email = configuration.caseSensitiveEmails ? typed : typed.lowercased()
        let password = try fields.requiredString("password")
        guard email.contains("@"), email.count <= 320 else {
            throw .invalidArgument("field email_address is not an e-mail address")
        }
        guard !password.isEmpty, password.utf8.count <= 1024 else {
            throw .invalidArgument("field password is empty or too long")
        }

        let account = try existingOrNewAccount(email: email, password: password)
        let time = now()
        let session = SessionRecord(
            id: Crypto.randomHex(bytes: 32), accountID: account.id, appKey: caller.appKey,
            creationTime: time, expirationTime: time.addingTimeInterval(configuration.sessionTTL))
        try stored { try store.insertSession(session) }
        return try json(
            PlatformSession(
                sessionID: session.id, accountID: account.id, accountType: "user", appID: caller.appKey,
                creationTime: time, expirationTime: session.expirationTime,
                fullname: String(email.prefix { $0 != "@" }), isPrimary: true,
                isVerified: configuration.verifiedEmails.contains(email.lowercased()), locale: "en",
                objectStatus: "active", updateTime: time))
    }

    private func existingOrNewAccount(email: String, password: String) throws(Refusal) -> AccountRecord {
        if let account = try stored({ try store.account(email: email) }) {
            let hash = Crypto.pbkdf2SHA256(password: password, salt: account.salt, iterations: account.iterations)
            guard Crypto.constantTimeEqual(hash, account.passwordHash) else { throw .wrongPassword }
            return account
        }
        // Sign-up: a new account's password has at least 8 characters (ASVS 2.1.1), refused with the
        // contract's error shape before anything is stored.
        guard password.count >= Self.minimumPasswordLength else { throw .passwordTooShort }
        // The slow hash is computed outside the lock; a concurrent sign-up of the same e-mail is settled
        // inside it (the first wins, the second is checked against it).
        let salt = Crypto.randomBytes(16)
        let iterations = configuration.passwordIterations
        let hash = Crypto.pbkdf2SHA256(password: password, salt: salt, iterations: iterations)
        let candidate = AccountRecord(
            id: Self.newID(), email: email, passwordHash: hash, salt: salt,
            iterations: iterations, creationTime: now())
        let account = try writeLock.withLock { _ throws(Refusal) -> AccountRecord in
            if let raced = try stored({ try store.account(email: email) }) { return raced }
            try stored { try store.insertAccount(candidate) }
            return candidate
        }
        if account.id != candidate.id {
            let hash = Crypto.pbkdf2SHA256(password: password, salt: account.salt, iterations: account.iterations)
            guard Crypto.constantTimeEqual(hash, account.passwordHash) else { throw .wrongPassword }
        }
        return account
    }
}
