import type { Catalogue } from './catalogue.ts';

export const it: Catalogue = {
  'page.title': 'Paga {amount} a {merchant}',
  'page.eyebrow': 'Paga a',
  'page.amount': 'Importo',
  'page.timeLeft': 'Tempo rimasto',
  'page.minutesLeft': {
    one: 'Manca {count} minuto',
    many: 'Mancano {count} di minuti',
    other: 'Mancano {count} minuti',
  },
  'page.underAMinuteLeft': 'Manca meno di un minuto',
  'page.reference': 'Riferimento {reference}',
  'page.chooseHowToPay': 'Scegli come pagare',
  'page.showAllWays': {
    one: 'Mostra il {count} metodo di pagamento',
    many: 'Mostra tutti i {count} di metodi di pagamento',
    other: 'Mostra tutti i {count} metodi di pagamento',
  },
  'page.walletsNeedScript':
    'I wallet del browser richiedono JavaScript: attivalo per pagare da questo dispositivo, oppure scansiona il codice QR con un wallet sul telefono.',
  'page.detailsAsked':
    'Questo pagamento chiede alcuni dati su di te prima di pagare. Vanno solo al servizio di pagamento.',
  'page.tryAgain': 'Riprova',
  'page.or': 'oppure',
  'page.scanToPay': 'Scansiona per pagare',
  'page.scanCaption': "Scansiona con l'app wallet del tuo telefono.",
  'page.qrLabel': 'Codice QR del link di pagamento',
  'page.openLink': 'Oppure apri il link di pagamento in un wallet: {link}',
  'page.waiting': 'In attesa del tuo pagamento',
  'page.otherDevice': 'Apri questa pagina su un altro dispositivo',
  'page.otherDeviceCaption':
    "Scansiona con la fotocamera di un telefono per continuare lì, o con un'app wallet che paga i link di pagamento.",
  'page.returning': 'Ritorno a {merchant}…',
  'page.continueTo': 'Continua su {merchant}',
  'page.copied': 'Copiato',
  'way.scan': "Scansiona con un'app wallet",
  'way.send': 'Invia a un indirizzo',

  'status.notTaking.heading': 'Pagamenti non accettati',
  'status.notTaking.text':
    '{merchant} al momento non accetta pagamenti, quindi ora non è dovuto nulla. Contatta {merchant} prima di pagare qualsiasi cosa.',
  'status.processing.heading': 'Pagamento inviato',
  'status.processing.text': 'Il tuo pagamento è in fase di conferma sulla rete. Questa pagina si aggiorna da sola.',
  'status.processing.waiting': 'Conferma in corso',
  'status.succeeded.heading': 'Pagamento completato',
  'status.succeeded.text': '{merchant} ha ricevuto il tuo pagamento di {amount}.',
  'status.succeeded.paidWith': 'Pagato con {amount}.',
  'status.succeeded.paidWithOn': 'Pagato con {amount} su {network}.',
  'status.succeeded.viewTransaction': 'Vedi la transazione',
  'status.failed.heading': 'Pagamento non riuscito',
  'status.expired.heading': 'Pagamento scaduto',
  'status.expired.text': 'Il tempo per pagare questo link è finito. Chiedi a {merchant} un nuovo link di pagamento.',
  'status.cancelled.heading': 'Pagamento annullato',
  'status.cancelled.text':
    'Questo pagamento è stato annullato, quindi non è dovuto nulla. Chiedi a {merchant} un nuovo link di pagamento se vuoi ancora pagare.',

  'announce.requiresAction': 'In attesa del tuo pagamento.',
  'announce.processing': 'Pagamento inviato; conferma in corso sulla rete.',
  'announce.succeeded': 'Pagamento completato.',
  'announce.failed': 'Pagamento non riuscito.',
  'announce.expired': 'Pagamento scaduto.',
  'announce.cancelled': 'Pagamento annullato.',

  'failure.underpaid':
    'Prima della scadenza è arrivato meno di quanto chiede il pagamento. Ciò che hai inviato può esserti restituito: contatta {merchant} indicando il riferimento qui sotto.',
  'failure.notMined':
    'Il tuo trasferimento non è stato confermato sulla rete in tempo. Se il tuo wallet lo mostra come inviato, contatta {merchant} indicando il riferimento qui sotto.',
  'failure.other':
    'Il pagamento non è andato a buon fine. Se il tuo wallet lo mostra come inviato, contatta {merchant} indicando il riferimento qui sotto.',

  'notFound.title': 'Pagamento non trovato',
  'notFound.text':
    'Questo link di pagamento non corrisponde a nessun pagamento. Controlla che il link sia completo, oppure chiedine uno nuovo al negozio.',

  'deposit.heading': 'Paga {amount} da qualsiasi wallet',
  'deposit.headingRest': 'Invia i {amount} rimanenti',
  'deposit.received': 'Ricevuti finora {amount}, meno di quanto chiede il pagamento.',
  'deposit.scanHint':
    "Scansiona questo codice con un'app wallet, o aprilo in una su questo dispositivo: indirizzo, token e importo esatto vengono compilati per te.",
  'deposit.open': "Apri in un'app wallet",
  'deposit.sendHint':
    "Da qualsiasi wallet, invia esattamente questo importo su {network} all'indirizzo proprio di questo pagamento. Se arriva meno, il resto viene chiesto qui; un altro token non lo paga.",
  'deposit.qrLabel': 'Codice QR di una richiesta di invio di {amount} su {network}',
  'deposit.addressQrLabel': "Codice QR dell'indirizzo del pagamento su {network}",
  'deposit.address': 'Indirizzo',
  'deposit.exactAmount': 'Importo esatto',
  'deposit.network': 'Rete',
  'deposit.networkValue': '{network} (ID catena {chainId})',
  'deposit.contract': 'Contratto {symbol}',
  'deposit.copyAddress': 'Copia indirizzo',
  'deposit.copyAmount': 'Copia importo',

  'solanaPay.heading': 'Paga {amount} da qualsiasi wallet Solana',
  'solanaPay.qrLabel': 'Codice QR Solana Pay: {amount} su {network}',
  'solanaPay.caption': 'Scansiona con un wallet compatibile con Solana Pay. Invia esattamente {amount} su {network}.',
  'solanaPay.open': 'Apri in un wallet Solana',
  'solanaPay.copyRequest': 'Copia la richiesta Solana Pay',
  'solanaPay.feePaid':
    'Non hai SOL per la commissione? Con un wallet che accetta le richieste di transazione Solana Pay, la commissione può essere pagata per te: {link}',
  'solanaPay.feePaidLink': 'Paga con la commissione coperta',
  'solanaPay.walletMessage': 'Pagamento {reference}',

  'wallet.payWith': 'Paga con {wallet}',
  'wallet.payWithUnnamed': 'Paga con un wallet del browser',
  'wallet.sendsOnly': '{wallet} firma solo inviando da sé la transazione, cosa che questo pagamento non può usare.',
  'wallet.listTitle': 'Paga {amount} su {network} con',
  'wallet.noneEvm':
    'Nessun wallet EVM trovato in questo browser per pagare su {network}. Scansiona il codice QR con un wallet sul telefono oppure scegli un’altra rete.',
  'wallet.noneSolana':
    'Nessun wallet Solana trovato in questo browser per pagare su {network}. Scansiona il codice QR con un wallet sul telefono oppure scegli un’altra rete.',
  'wallet.detailsFrameTitle': 'I tuoi dati per questo pagamento',
  'wallet.detailsExpired': 'Il tempo per inserire i tuoi dati è scaduto. Riprova per ricevere un nuovo modulo.',
  'wallet.detailsFailed':
    'Non è stato possibile registrare i tuoi dati per questo pagamento. Riprova oppure scansiona il codice QR con un wallet sul telefono.',
  'wallet.connecting': 'In attesa che {wallet} si colleghi…',
  'wallet.connectingUnnamed': 'In attesa che il tuo wallet si colleghi…',
  'wallet.noAccount': '{wallet} non ha condiviso alcun account. Sbloccalo o crea un account, poi riprova.',
  'wallet.noAccountUnnamed': 'Il tuo wallet non ha condiviso alcun account. Sbloccalo o crea un account, poi riprova.',
  'wallet.gettingAmount': 'Calcolo dell’importo per {account}…',
  'wallet.notEnough':
    'L’account {account} non ha abbastanza per pagare {amount} su {network}. Ricaricalo o cambia account nel tuo wallet, oppure scegli un altro metodo di pagamento, poi riprova.',
  'wallet.confirm': 'Conferma il pagamento in {wallet}…',
  'wallet.confirmUnnamed': 'Conferma il pagamento nel tuo wallet…',
  'wallet.sent': 'Pagamento inviato. In attesa della conferma della rete…',
  'wallet.declinedConnect': 'Hai rifiutato di collegare il tuo wallet. Riprova quando sei pronto.',

  'walletError.declined':
    'Hai rifiutato la richiesta nel tuo wallet, quindi non è stato pagato nulla. Riprova quando sei pronto.',
  'walletError.unknownChain':
    'Il tuo wallet non è riuscito a passare alla rete {network}. Aggiungi {network} al tuo wallet (o passaci tu stesso), poi riprova.',
  'walletError.reverted': 'La transazione è stata rifiutata dalla rete. Controlla il saldo e riprova.',
  'walletError.unsupported':
    'Il tuo wallet non può eseguire questo metodo di pagamento. Scegli un’altra opzione oppure scansiona il codice QR con un wallet sul telefono.',
  'walletError.provider':
    'Il tuo wallet ha segnalato un problema: {problem}. Riprova oppure scansiona il codice QR con un wallet sul telefono.',
  'walletError.unreachable':
    'Non è stato possibile raggiungere il servizio di pagamento. Controlla la connessione e riprova.',
  'walletError.quoteExpired': 'La quotazione è scaduta prima della tua firma. Riprova per averne una nuova.',
  'walletError.rateLimited': 'Troppi tentativi in poco tempo. Attendi un momento, poi riprova.',
  'walletError.merchantNotActive':
    'Questo negozio al momento non accetta pagamenti, quindi non è stato addebitato nulla. Contatta il negozio.',
  'walletError.refused':
    'Il servizio di pagamento ha rifiutato il pagamento: {problem} Riprova oppure scegli un’altra opzione.',
  'walletError.other':
    'Qualcosa non ha funzionato con il tuo wallet. Riprova oppure scansiona il codice QR con un wallet sul telefono.',

  'form.title': 'I tuoi dati per {merchant}',
  'form.titleWithErrors': 'Errore: i tuoi dati per {merchant}',
  'form.heading': 'I tuoi dati',
  'form.lead': '{merchant} chiede questi dati prima che tu paghi {amount}.',
  'form.errorSummary': 'Controlla i tuoi dati',
  'form.summaryItem': '{field}: {problem}',
  'form.errorLabel': 'Errore:',
  'form.optional': '(facoltativo)',
  'form.placeGroup': 'Luogo di nascita o luogo di residenza (almeno uno)',
  'form.continue': 'Continua',
  'form.fullName': 'Nome e cognome',
  'form.fullNameHint': 'Come sul tuo documento d’identità',
  'form.dateOfBirth': 'Data di nascita',
  'form.dateOfBirthHint': 'AAAA-MM-GG',
  'form.placeOfBirth': 'Luogo di nascita',
  'form.placeOfResidence': 'Luogo di residenza',
  'form.placeHint': 'Città e paese',
  'form.termsAccepted': 'Accetto le condizioni di questo pagamento',
  'form.termsAcceptedHint': 'Questi dati sono condivisi con il venditore solo per questo pagamento',
  'form.problem.fullNameMissing': 'Inserisci nome e cognome',
  'form.problem.dateOfBirthMissing': 'Inserisci la tua data di nascita',
  'form.problem.placeMissing': 'Inserisci il tuo luogo di nascita o il tuo luogo di residenza',
  'form.problem.termsNotAccepted': 'Accetta le condizioni per continuare',
  'form.problem.notADate': 'Inserisci una data reale nel formato AAAA-MM-GG',
  'form.problem.dateNotPast': 'La data di nascita deve essere nel passato',
  'form.problem.tooLong': {
    one: 'Usa al massimo {count} carattere',
    many: 'Usa al massimo {count} di caratteri',
    other: 'Usa al massimo {count} caratteri',
  },
  'form.problem.invalid': 'Questa risposta non è valida',
  'form.done.heading': 'Dati ricevuti',
  'form.done.text': 'Grazie. {merchant} ha ricevuto i tuoi dati; torna al tuo wallet per pagare.',
  'form.expired.heading': 'Questo link è scaduto',
  'form.expired.text': 'Il tempo per inserire i tuoi dati per questo pagamento è finito.',
  'form.invalid.heading': 'Questo link non è valido',
  'form.invalid.text': 'Non è stato emesso da questo servizio per un pagamento, oppure è stato modificato.',
  'form.notPayable.heading': 'Questo pagamento non può più essere pagato',
  'form.notPayable.text': 'Il pagamento non è più in attesa, quindi non servono dati.',
  'form.unavailable.heading': 'Al momento non è possibile registrare i dati',
  'form.unavailable.text': 'Questo servizio non è configurato per conservare i dati degli acquirenti.',
  'form.startAgain': 'Torna al tuo wallet e ricomincia il pagamento.',
  'link.title': 'Paga {merchant}',
  'link.price': 'Prezzo',
  'link.quantity': 'Quantità',
  'link.yourAmount': 'Importo in {currency}',
  'link.amountBetween': 'Da {minimum} a {maximum}.',
  'link.continue': 'Continua al pagamento',
  'link.reference': 'Link di pagamento {link}',
  'link.problem.amountMissing': 'Inserisci un importo.',
  'link.problem.amountNotANumber': 'Inserisci l’importo come numero, per esempio {example}.',
  'link.problem.amountBelow': 'L’importo deve essere almeno {minimum}.',
  'link.problem.amountAbove': 'L’importo deve essere al massimo {maximum}.',
  'link.problem.quantity': 'Scegli una quantità da 1 a {maximum}.',
  'link.problem.pageUsed':
    'Questa pagina è già stata inviata con un altro importo. Controlla l’importo e continua di nuovo.',
  'link.inactive.heading': 'Questo link non accetta pagamenti',
  'link.inactive.text':
    '{merchant} ha disattivato questo link di pagamento. Chiedi a {merchant} un altro modo per pagare.',
  'link.expired.heading': 'Questo link è scaduto',
  'link.expired.text': 'Questo link di pagamento di {merchant} non è più aperto. Chiedine uno nuovo a {merchant}.',
  'link.spent.heading': 'Questo link è esaurito',
  'link.spent.text': 'Questo link di pagamento ha ricevuto tutti i pagamenti che {merchant} consente.',
  'link.allTaken.heading': 'Tutto prenotato per ora',
  'link.allTaken.text':
    'Altri acquirenti stanno pagando ciò che resta. Un pagamento non completato libera il suo posto: riprova tra qualche minuto.',
  'link.tryAgain': 'Riprova',
  'link.notFound.title': 'Link di pagamento non trovato',
  'link.notFound.text': 'Controlla l’indirizzo o chiedi di nuovo il link al commerciante.',
};
