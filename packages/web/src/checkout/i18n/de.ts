import type { Catalogue } from './catalogue.ts';

export const de: Catalogue = {
  'page.title': '{amount} an {merchant} zahlen',
  'page.eyebrow': 'Zahlung an',
  'page.amount': 'Betrag',
  'page.timeLeft': 'Verbleibende Zeit',
  'page.minutesLeft': { one: 'Noch {count} Minute', other: 'Noch {count} Minuten' },
  'page.underAMinuteLeft': 'Weniger als eine Minute übrig',
  'page.reference': 'Referenz {reference}',
  'page.chooseHowToPay': 'Zahlungsart wählen',
  'page.showAllWays': { one: 'Alle {count} Zahlungsart anzeigen', other: 'Alle {count} Zahlungsarten anzeigen' },
  'page.walletsNeedScript':
    'Browser-Wallets brauchen JavaScript: Schalten Sie es ein, um von diesem Gerät aus zu zahlen, oder scannen Sie den QR-Code mit einer Wallet auf dem Smartphone.',
  'page.detailsAsked':
    'Für diese Zahlung werden vor dem Bezahlen einige Angaben zu Ihrer Person benötigt. Sie gehen nur an den Zahlungsdienst.',
  'page.tryAgain': 'Erneut versuchen',
  'page.or': 'oder',
  'page.scanToPay': 'Zum Bezahlen scannen',
  'page.scanCaption': 'Mit der Wallet-App auf Ihrem Smartphone scannen.',
  'page.qrLabel': 'QR-Code des Zahlungslinks',
  'page.openLink': 'Oder öffnen Sie den Zahlungslink in einer Wallet: {link}',
  'page.waiting': 'Warten auf Ihre Zahlung',
  'page.otherDevice': 'Diese Seite auf einem anderen Gerät öffnen',
  'page.otherDeviceCaption':
    'Mit der Kamera eines Smartphones scannen, um dort weiterzumachen, oder mit einer Wallet-App, die Zahlungslinks bezahlt.',
  'page.returning': 'Sie werden zu {merchant} zurückgeleitet …',
  'page.continueTo': 'Weiter zu {merchant}',
  'page.copied': 'Kopiert',
  'way.scan': 'Mit einer Wallet-App scannen',
  'way.send': 'An eine Adresse senden',

  'status.notTaking.heading': 'Keine Zahlungen möglich',
  'status.notTaking.text':
    '{merchant} nimmt derzeit keine Zahlungen an, daher ist jetzt nichts fällig. Wenden Sie sich an {merchant}, bevor Sie etwas bezahlen.',
  'status.processing.heading': 'Zahlung gesendet',
  'status.processing.text': 'Ihre Zahlung wird im Netzwerk bestätigt. Diese Seite aktualisiert sich von selbst.',
  'status.processing.waiting': 'Wird bestätigt',
  'status.succeeded.heading': 'Zahlung abgeschlossen',
  'status.succeeded.text': '{merchant} hat Ihre Zahlung über {amount} erhalten.',
  'status.succeeded.paidWith': 'Bezahlt mit {amount}.',
  'status.succeeded.paidWithOn': 'Bezahlt mit {amount} auf {network}.',
  'status.succeeded.viewTransaction': 'Transaktion ansehen',
  'status.failed.heading': 'Zahlung fehlgeschlagen',
  'status.expired.heading': 'Zahlung abgelaufen',
  'status.expired.text':
    'Die Zeit zum Bezahlen dieses Links ist abgelaufen. Bitten Sie {merchant} um einen neuen Zahlungslink.',
  'status.cancelled.heading': 'Zahlung storniert',
  'status.cancelled.text':
    'Diese Zahlung wurde storniert, daher ist nichts fällig. Bitten Sie {merchant} um einen neuen Zahlungslink, wenn Sie trotzdem zahlen möchten.',

  'announce.requiresAction': 'Warten auf Ihre Zahlung.',
  'announce.processing': 'Zahlung gesendet; wird im Netzwerk bestätigt.',
  'announce.succeeded': 'Zahlung abgeschlossen.',
  'announce.failed': 'Zahlung fehlgeschlagen.',
  'announce.expired': 'Zahlung abgelaufen.',
  'announce.cancelled': 'Zahlung storniert.',

  'failure.underpaid':
    'Bis zum Ablauf ist weniger angekommen, als die Zahlung verlangt. Was Sie gesendet haben, kann an Sie zurückgehen: Wenden Sie sich an {merchant} und nennen Sie die Referenz unten.',
  'failure.notMined':
    'Ihre Überweisung wurde nicht rechtzeitig im Netzwerk bestätigt. Wenn Ihre Wallet sie als gesendet anzeigt, wenden Sie sich an {merchant} und nennen Sie die Referenz unten.',
  'failure.other':
    'Die Zahlung ist nicht durchgegangen. Wenn Ihre Wallet sie als gesendet anzeigt, wenden Sie sich an {merchant} und nennen Sie die Referenz unten.',

  'notFound.title': 'Zahlung nicht gefunden',
  'notFound.text':
    'Dieser Zahlungslink passt zu keiner Zahlung. Prüfen Sie, ob der Link vollständig ist, oder bitten Sie den Shop um einen neuen.',

  'deposit.heading': '{amount} aus einer beliebigen Wallet zahlen',
  'deposit.headingRest': 'Restliche {amount} senden',
  'deposit.received': 'Bisher {amount} erhalten, weniger als die Zahlung verlangt.',
  'deposit.scanHint':
    'Scannen Sie diesen Code mit einer Wallet-App oder öffnen Sie ihn in einer auf diesem Gerät: Adresse, Token und genauer Betrag werden für Sie ausgefüllt.',
  'deposit.open': 'In einer Wallet-App öffnen',
  'deposit.sendHint':
    'Senden Sie aus einer beliebigen Wallet genau diesen Betrag auf {network} an die eigene Adresse dieser Zahlung. Kommt weniger an, wird der Rest hier verlangt; ein anderer Token bezahlt sie nicht.',
  'deposit.qrLabel': 'QR-Code einer Anfrage, {amount} auf {network} zu senden',
  'deposit.addressQrLabel': 'QR-Code der Adresse dieser Zahlung auf {network}',
  'deposit.address': 'Adresse',
  'deposit.exactAmount': 'Genauer Betrag',
  'deposit.network': 'Netzwerk',
  'deposit.networkValue': '{network} (Chain-ID {chainId})',
  'deposit.contract': '{symbol}-Vertrag',
  'deposit.copyAddress': 'Adresse kopieren',
  'deposit.copyAmount': 'Betrag kopieren',

  'solanaPay.heading': '{amount} aus einer beliebigen Solana-Wallet zahlen',
  'solanaPay.qrLabel': 'Solana-Pay-QR-Code: {amount} auf {network}',
  'solanaPay.caption': 'Mit einer Solana-Pay-Wallet scannen. Sie sendet genau {amount} auf {network}.',
  'solanaPay.open': 'In einer Solana-Wallet öffnen',
  'solanaPay.copyRequest': 'Solana-Pay-Anfrage kopieren',
  'solanaPay.feePaid':
    'Kein SOL für die Gebühr? In einer Wallet, die Solana-Pay-Transaktionsanfragen annimmt, kann die Gebühr für Sie übernommen werden: {link}',
  'solanaPay.feePaidLink': 'Mit übernommener Gebühr bezahlen',
  'solanaPay.walletMessage': 'Zahlung {reference}',

  'wallet.payWith': 'Mit {wallet} bezahlen',
  'wallet.payWithUnnamed': 'Mit einer Browser-Wallet bezahlen',
  'wallet.sendsOnly':
    '{wallet} signiert nur, indem sie die Transaktion selbst sendet, was diese Zahlung nicht nutzen kann.',
  'wallet.listTitle': '{amount} auf {network} bezahlen mit',
  'wallet.noneEvm':
    'In diesem Browser wurde keine EVM-Wallet gefunden, um auf {network} zu bezahlen. Scannen Sie den QR-Code mit einer Wallet auf dem Smartphone oder wählen Sie ein anderes Netzwerk.',
  'wallet.noneSolana':
    'In diesem Browser wurde keine Solana-Wallet gefunden, um auf {network} zu bezahlen. Scannen Sie den QR-Code mit einer Wallet auf dem Smartphone oder wählen Sie ein anderes Netzwerk.',
  'wallet.detailsFrameTitle': 'Ihre Angaben für diese Zahlung',
  'wallet.detailsExpired':
    'Die Zeit für Ihre Angaben ist abgelaufen. Versuchen Sie es erneut, um ein neues Formular zu erhalten.',
  'wallet.detailsFailed':
    'Ihre Angaben konnten für diese Zahlung nicht aufgenommen werden. Versuchen Sie es erneut oder scannen Sie den QR-Code mit einer Wallet auf dem Smartphone.',
  'wallet.connecting': 'Warten, bis {wallet} sich verbindet …',
  'wallet.connectingUnnamed': 'Warten, bis sich Ihre Wallet verbindet …',
  'wallet.noAccount':
    '{wallet} hat kein Konto freigegeben. Entsperren Sie sie oder legen Sie ein Konto an und versuchen Sie es dann erneut.',
  'wallet.noAccountUnnamed':
    'Ihre Wallet hat kein Konto freigegeben. Entsperren Sie sie oder legen Sie ein Konto an und versuchen Sie es dann erneut.',
  'wallet.gettingAmount': 'Betrag für {account} wird ermittelt …',
  'wallet.notEnough':
    'Das Konto {account} hat nicht genug, um {amount} auf {network} zu bezahlen. Laden Sie es auf oder wechseln Sie das Konto in Ihrer Wallet, oder wählen Sie eine andere Zahlungsart, und versuchen Sie es dann erneut.',
  'wallet.confirm': 'Bestätigen Sie die Zahlung in {wallet} …',
  'wallet.confirmUnnamed': 'Bestätigen Sie die Zahlung in Ihrer Wallet …',
  'wallet.sent': 'Zahlung gesendet. Warten auf die Bestätigung im Netzwerk …',
  'wallet.declinedConnect':
    'Sie haben die Verbindung Ihrer Wallet abgelehnt. Versuchen Sie es erneut, wenn Sie bereit sind.',

  'walletError.declined':
    'Sie haben die Anfrage in Ihrer Wallet abgelehnt, daher wurde nichts bezahlt. Versuchen Sie es erneut, wenn Sie bereit sind.',
  'walletError.unknownChain':
    'Ihre Wallet konnte nicht zum Netzwerk {network} wechseln. Fügen Sie {network} Ihrer Wallet hinzu (oder wechseln Sie selbst dorthin) und versuchen Sie es dann erneut.',
  'walletError.reverted':
    'Die Transaktion wurde vom Netzwerk abgelehnt. Prüfen Sie Ihr Guthaben und versuchen Sie es erneut.',
  'walletError.unsupported':
    'Ihre Wallet kann diese Zahlungsart nicht ausführen. Wählen Sie eine andere Option oder scannen Sie den QR-Code mit einer Wallet auf dem Smartphone.',
  'walletError.provider':
    'Ihre Wallet meldet ein Problem: {problem}. Versuchen Sie es erneut oder scannen Sie den QR-Code mit einer Wallet auf dem Smartphone.',
  'walletError.unreachable':
    'Der Zahlungsdienst war nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  'walletError.quoteExpired':
    'Das Preisangebot ist abgelaufen, bevor Sie signiert haben. Versuchen Sie es erneut, um ein neues zu erhalten.',
  'walletError.rateLimited':
    'Zu viele Versuche in kurzer Zeit. Warten Sie einen Moment und versuchen Sie es dann erneut.',
  'walletError.merchantNotActive':
    'Dieser Shop nimmt derzeit keine Zahlungen an, daher wurde nichts belastet. Wenden Sie sich an den Shop.',
  'walletError.refused':
    'Der Zahlungsdienst hat die Zahlung abgelehnt: {problem} Versuchen Sie es erneut oder wählen Sie eine andere Option.',
  'walletError.other':
    'Mit Ihrer Wallet ist etwas schiefgegangen. Versuchen Sie es erneut oder scannen Sie den QR-Code mit einer Wallet auf dem Smartphone.',

  'form.title': 'Ihre Angaben für {merchant}',
  'form.titleWithErrors': 'Fehler: Ihre Angaben für {merchant}',
  'form.heading': 'Ihre Angaben',
  'form.lead': '{merchant} bittet um diese Angaben, bevor Sie {amount} bezahlen.',
  'form.errorSummary': 'Bitte prüfen Sie Ihre Angaben',
  'form.summaryItem': '{field}: {problem}',
  'form.errorLabel': 'Fehler:',
  'form.optional': '(optional)',
  'form.placeGroup': 'Geburtsort oder Wohnort (mindestens eines)',
  'form.continue': 'Weiter',
  'form.fullName': 'Vollständiger Name',
  'form.fullNameHint': 'Wie in Ihrem Ausweisdokument',
  'form.dateOfBirth': 'Geburtsdatum',
  'form.dateOfBirthHint': 'JJJJ-MM-TT',
  'form.placeOfBirth': 'Geburtsort',
  'form.placeOfResidence': 'Wohnort',
  'form.placeHint': 'Stadt und Land',
  'form.termsAccepted': 'Ich akzeptiere die Bedingungen dieser Zahlung',
  'form.termsAcceptedHint': 'Diese Angaben werden nur für diese Zahlung mit dem Händler geteilt',
  'form.problem.fullNameMissing': 'Geben Sie Ihren vollständigen Namen ein',
  'form.problem.dateOfBirthMissing': 'Geben Sie Ihr Geburtsdatum ein',
  'form.problem.placeMissing': 'Geben Sie Ihren Geburtsort oder Ihren Wohnort ein',
  'form.problem.termsNotAccepted': 'Akzeptieren Sie die Bedingungen, um fortzufahren',
  'form.problem.notADate': 'Geben Sie ein gültiges Datum als JJJJ-MM-TT ein',
  'form.problem.dateNotPast': 'Ein Geburtsdatum muss in der Vergangenheit liegen',
  'form.problem.tooLong': { one: 'Höchstens {count} Zeichen', other: 'Höchstens {count} Zeichen' },
  'form.problem.invalid': 'Diese Angabe ist nicht gültig',
  'form.done.heading': 'Angaben erhalten',
  'form.done.text': 'Danke. {merchant} hat Ihre Angaben; kehren Sie zum Bezahlen zu Ihrer Wallet zurück.',
  'form.expired.heading': 'Dieser Link ist abgelaufen',
  'form.expired.text': 'Die Zeit für Ihre Angaben zu dieser Zahlung ist vorbei.',
  'form.invalid.heading': 'Dieser Link ist ungültig',
  'form.invalid.text': 'Er wurde nicht von diesem Dienst für eine Zahlung ausgestellt, oder er wurde verändert.',
  'form.notPayable.heading': 'Diese Zahlung kann nicht mehr bezahlt werden',
  'form.notPayable.text': 'Die Zahlung wartet nicht mehr auf Bezahlung, daher werden keine Angaben benötigt.',
  'form.unavailable.heading': 'Angaben können jetzt nicht aufgenommen werden',
  'form.unavailable.text': 'Dieser Dienst ist nicht dafür eingerichtet, Angaben von Käufern zu speichern.',
  'form.startAgain': 'Kehren Sie zu Ihrer Wallet zurück und starten Sie die Zahlung erneut.',
  'link.title': '{merchant} bezahlen',
  'link.price': 'Preis',
  'link.quantity': 'Menge',
  'link.yourAmount': 'Betrag in {currency}',
  'link.amountBetween': 'Von {minimum} bis {maximum}.',
  'link.continue': 'Weiter zur Zahlung',
  'link.reference': 'Zahlungslink {link}',
  'link.problem.amountMissing': 'Geben Sie einen Betrag ein.',
  'link.problem.amountNotANumber': 'Geben Sie den Betrag als Zahl ein, zum Beispiel {example}.',
  'link.problem.amountBelow': 'Der Betrag muss mindestens {minimum} sein.',
  'link.problem.amountAbove': 'Der Betrag darf höchstens {maximum} sein.',
  'link.problem.quantity': 'Wählen Sie eine Menge von 1 bis {maximum}.',
  'link.problem.pageUsed':
    'Diese Seite wurde bereits mit einem anderen Betrag gesendet. Prüfen Sie den Betrag und fahren Sie erneut fort.',
  'link.inactive.heading': 'Dieser Link nimmt keine Zahlungen an',
  'link.inactive.text':
    '{merchant} hat diesen Zahlungslink abgeschaltet. Fragen Sie {merchant} nach einem anderen Zahlungsweg.',
  'link.expired.heading': 'Dieser Link ist abgelaufen',
  'link.expired.text':
    'Dieser Zahlungslink von {merchant} ist nicht mehr offen. Fragen Sie {merchant} nach einem neuen.',
  'link.spent.heading': 'Dieser Link ist aufgebraucht',
  'link.spent.text': 'Dieser Zahlungslink hat so viele Zahlungen erhalten, wie {merchant} zulässt.',
  'link.allTaken.heading': 'Derzeit alles vergeben',
  'link.allTaken.text':
    'Andere Käufer bezahlen gerade den Rest. Eine nicht abgeschlossene Zahlung gibt ihren Platz frei: Versuchen Sie es in ein paar Minuten erneut.',
  'link.tryAgain': 'Erneut versuchen',
  'link.notFound.title': 'Zahlungslink nicht gefunden',
  'link.notFound.text': 'Prüfen Sie die Adresse oder fragen Sie den Händler erneut nach dem Link.',
};
