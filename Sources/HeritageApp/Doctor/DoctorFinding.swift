// Doctor: `har doctor`, the checks an operator runs before and after installing or upgrading. Each
// check reads what `har serve` would use and reports one line: OK, WARN or FAIL, and what to do.

/// One line of `har doctor`: what was checked, what was found, and what to do when it is not OK.
struct DoctorFinding: Sendable, Equatable {
    enum Level: Int, Sendable, Comparable {
        case ok = 0
        case warn = 1
        case fail = 2

        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        var label: String {
            switch self {
            case .ok: "OK  "
            case .warn: "WARN"
            case .fail: "FAIL"
            }
        }
    }

    let level: Level
    let subject: String
    let message: String
    /// What the operator should do; nil when nothing is to be done.
    let advice: String?

    static func ok(_ subject: String, _ message: String) -> DoctorFinding {
        DoctorFinding(level: .ok, subject: subject, message: message, advice: nil)
    }
    static func warn(_ subject: String, _ message: String, do advice: String) -> DoctorFinding {
        DoctorFinding(level: .warn, subject: subject, message: message, advice: advice)
    }
    static func fail(_ subject: String, _ message: String, do advice: String) -> DoctorFinding {
        DoctorFinding(level: .fail, subject: subject, message: message, advice: advice)
    }

    /// `FAIL tls: certificate … does not match its key; do: …`
    var line: String {
        "\(level.label) \(subject): \(message)" + (advice.map { "; do: \($0)" } ?? "")
    }
}
