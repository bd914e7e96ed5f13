import Basics
import Mustache

/// `har mail test EMAIL [--language en|fr]`: one message through the configured server, and the
/// server's answer printed, so an operator checks the settings before anyone relies on them.
enum MailCommand {
    static let usage = """
        Usage: har mail [--config FILE] test EMAIL [--language en|fr]
          sends one test message through smtp_url and prints the server's last answer
          (exit 0: accepted; 1: refused or failed; 78: mail not configured)
        """

    static func main(_ arguments: [String]) -> Int32 {
        let (options, action) = Command.separatingConfigOption(arguments)
        if action.contains("--help") || action.contains("-h") || action.isEmpty {
            print(usage)
            return action.isEmpty ? 64 : 0
        }
        guard action.first == "test", action.count == 2 || action.count == 4 else {
            Command.printError("unknown mail command; see har mail --help")
            return 64
        }
        var language = Language.en
        if action.count == 4 {
            guard action[2] == "--language", let chosen = Language(rawValue: action[3]) else {
                Command.printError("--language takes en or fr")
                return 64
            }
            language = chosen
        }
        guard let recipient = MailAddress(action[1]) else {
            Command.printError("\"\(action[1])\" is not an e-mail address this server sends to")
            return 64
        }
        let configuration: Configuration
        do {
            configuration = try Command.loadConfiguration(options)
        } catch {
            Command.printError("\(error)")
            return 78
        }
        guard let settings = SMTPSettings(configuration) else {
            Command.printError("mail is off: set smtp_url and smtp_from (see docs/NOTIFICATIONS.md)")
            return 78
        }
        do {
            let composer = MailComposer(
                templates: try TemplateLibrary(directory: configuration.templatesDir),
                catalog: try MessageCatalog(directory: configuration.templatesDir), from: settings.from)
            let message = try composer.compose(
                MailContent.test, to: recipient, language: language,
                messageID: MailMessage.newMessageID(domain: settings.from.domain),
                dateSeconds: Int(WallClock.now()))
            return report(SMTPSender(settings: settings).send(message), messageID: message.messageID)
        } catch {
            Command.printError("\(error)")
            return 1
        }
    }

    private static func report(_ outcome: SMTPOutcome, messageID: String) -> Int32 {
        switch outcome {
        case .sent(let reply):
            print("sent <\(messageID)>: \(reply)")
            return 0
        case .rejected(let code, let reply):
            Command.printError("refused (\(code), permanent): \(reply)")
        case .deferred(let code, let reply):
            Command.printError("not sent (\(code), temporary): \(reply)")
        case .uncertain(let reply):
            Command.printError("no answer after the message was sent; it may have arrived: \(reply)")
        }
        return 1
    }
}
