import Mustache

/// Turns an outbox row into the message it stands for, in the recipient's language, with links to this
/// site (`public_url`): the answer form of a question, the one-click unsubscribe of every message a
/// person can turn off.
struct MailJobMessages: Sendable {
    let templates: TemplateLibrary
    let catalog: MessageCatalog
    let baseURL: String

    struct Unknown: Error, CustomStringConvertible {
        let description: String
    }

    func message(for job: MailJob, from: MailAddress, now: Double) throws -> MailMessage {
        guard let to = MailAddress(job.email) else { throw Unknown(description: "no usable address") }
        let composer = MailComposer(templates: templates, catalog: catalog, from: from)
        let title = job.reportTitle ?? ""
        guard let kind = MailKind(rawValue: job.kind) else { throw Unknown(description: "unknown kind \(job.kind)") }
        let content: (Messages) -> MailContent
        switch kind {
        case .needsInfo:
            // A kiosk visitor who claimed the receipt follows the report on the receipt's page.
            let answer =
                job.receiptCode.map { baseURL + "/r/" + $0 }
                ?? baseURL + "/reports/" + (job.reportLocalID ?? "") + "/reply"
            content = {
                MailContent.needsInfo(
                    $0, reporterName: job.name ?? "", reportTitle: title, question: job.detail ?? "", answerURL: answer)
            }
        case .approved, .rejected:
            let approved = kind == .approved
            content = {
                MailContent.decision(
                    $0, approved: approved, reporterName: job.name ?? "", reportTitle: title, reasonCode: job.detail,
                    listURL: job.receiptCode.map { baseURL + "/r/" + $0 } ?? baseURL + "/reports")
            }
        case .reportArrived:
            content = {
                MailContent.reportArrived(
                    $0, title: title, origin: $0["review.origin.\(job.reportOrigin ?? "volunteer")"], baseURL: baseURL)
            }
        case .digest:
            content = { MailContent.digest($0, DigestCounts(detail: job.detail ?? ""), baseURL: baseURL) }
        case .adminNote:
            let counts = DigestCounts.pairs(job.detail ?? "")
            content = {
                MailContent.adminNote(
                    $0, failures: counts["failures"] ?? 0, kiosks: counts["kiosks"] ?? 0, baseURL: baseURL)
            }
        }
        return try composer.compose(
            content, to: to, toName: job.name, language: Language(rawValue: job.language) ?? .en,
            messageID: "\(job.token)@\(from.domain)", dateSeconds: Int(now),
            unsubscribeURL: baseURL + "/mail/unsubscribe/" + job.unsubscribeToken)
    }
}
