import type { Catalogue } from './catalogue.ts';

export const fr: Catalogue = {
  'page.title': 'Payer {amount} à {merchant}',
  'page.eyebrow': 'Payer',
  'page.amount': 'Montant',
  'page.timeLeft': 'Temps restant',
  'page.minutesLeft': {
    one: 'Encore {count} minute',
    many: 'Encore {count} de minutes',
    other: 'Encore {count} minutes',
  },
  'page.underAMinuteLeft': 'Moins d’une minute restante',
  'page.reference': 'Référence {reference}',
  'page.chooseHowToPay': 'Choisissez comment payer',
  'page.showAllWays': {
    one: 'Afficher le {count} moyen de paiement',
    many: 'Afficher les {count} de moyens de paiement',
    other: 'Afficher les {count} moyens de paiement',
  },
  'page.walletsNeedScript':
    'Les portefeuilles du navigateur ont besoin de JavaScript\u00a0: activez-le pour payer depuis cet appareil, ou scannez le code QR avec un portefeuille sur téléphone.',
  'page.detailsAsked':
    'Ce paiement demande quelques informations vous concernant avant de payer. Elles ne sont transmises qu’au service de paiement.',
  'page.tryAgain': 'Réessayer',
  'page.or': 'ou',
  'page.scanToPay': 'Scanner pour payer',
  'page.scanCaption': 'Scannez avec l’application portefeuille de votre téléphone.',
  'page.qrLabel': 'Code QR du lien de paiement',
  'page.openLink': 'Ou ouvrez le lien de paiement dans un portefeuille\u00a0: {link}',
  'page.waiting': 'En attente de votre paiement',
  'page.otherDevice': 'Ouvrir cette page sur un autre appareil',
  'page.otherDeviceCaption':
    'Scannez avec l’appareil photo d’un téléphone pour continuer dessus, ou avec une application portefeuille qui paie les liens de paiement.',
  'page.returning': 'Retour vers {merchant}…',
  'page.continueTo': 'Continuer vers {merchant}',
  'page.copied': 'Copié',
  'way.scan': 'Scanner avec un portefeuille',
  'way.send': 'Envoyer à une adresse',

  'status.notTaking.heading': 'Paiements suspendus',
  'status.notTaking.text':
    '{merchant} n’accepte pas de paiements pour le moment\u00a0: rien n’est dû maintenant. Contactez {merchant} avant de payer quoi que ce soit.',
  'status.processing.heading': 'Paiement envoyé',
  'status.processing.text':
    'Votre paiement est en cours de confirmation sur le réseau. Cette page se met à jour d’elle-même.',
  'status.processing.waiting': 'Confirmation en cours',
  'status.succeeded.heading': 'Paiement effectué',
  'status.succeeded.text': '{merchant} a bien reçu votre paiement de {amount}.',
  'status.succeeded.paidWith': 'Payé avec {amount}.',
  'status.succeeded.paidWithOn': 'Payé avec {amount} sur {network}.',
  'status.succeeded.viewTransaction': 'Voir la transaction',
  'status.failed.heading': 'Échec du paiement',
  'status.expired.heading': 'Paiement expiré',
  'status.expired.text': 'Le délai pour payer ce lien est écoulé. Demandez un nouveau lien de paiement à {merchant}.',
  'status.cancelled.heading': 'Paiement annulé',
  'status.cancelled.text':
    'Ce paiement a été annulé\u00a0: rien n’est dû. Demandez un nouveau lien de paiement à {merchant} si vous souhaitez toujours payer.',

  'announce.requiresAction': 'En attente de votre paiement.',
  'announce.processing': 'Paiement envoyé\u00a0; confirmation en cours sur le réseau.',
  'announce.succeeded': 'Paiement effectué.',
  'announce.failed': 'Échec du paiement.',
  'announce.expired': 'Paiement expiré.',
  'announce.cancelled': 'Paiement annulé.',

  'failure.underpaid':
    'Moins que le montant demandé est arrivé avant l’expiration. Ce que vous avez envoyé peut vous être renvoyé\u00a0: contactez {merchant} en indiquant la référence ci-dessous.',
  'failure.notMined':
    'Votre transfert n’a pas été confirmé sur le réseau à temps. Si votre portefeuille l’indique comme envoyé, contactez {merchant} en indiquant la référence ci-dessous.',
  'failure.other':
    'Le paiement n’a pas abouti. Si votre portefeuille l’indique comme envoyé, contactez {merchant} en indiquant la référence ci-dessous.',

  'notFound.title': 'Paiement introuvable',
  'notFound.text':
    'Ce lien de paiement ne correspond à aucun paiement. Vérifiez que le lien est complet, ou demandez-en un nouveau à la boutique.',

  'deposit.heading': 'Payer {amount} depuis n’importe quel portefeuille',
  'deposit.headingRest': 'Envoyer les {amount} restants',
  'deposit.received': '{amount} reçus jusqu’ici, moins que le montant demandé.',
  'deposit.scanHint':
    'Scannez ce code avec une application portefeuille, ou ouvrez-le dans l’une d’elles sur cet appareil\u00a0: l’adresse, le jeton et le montant exact sont remplis pour vous.',
  'deposit.open': 'Ouvrir dans une application portefeuille',
  'deposit.sendHint':
    'Depuis n’importe quel portefeuille, envoyez exactement ce montant sur {network} à l’adresse propre à ce paiement. S’il arrive moins, le reste est demandé ici\u00a0; un autre jeton ne le règle pas.',
  'deposit.qrLabel': 'Code QR d’une demande d’envoi de {amount} sur {network}',
  'deposit.addressQrLabel': 'Code QR de l’adresse du paiement sur {network}',
  'deposit.address': 'Adresse',
  'deposit.exactAmount': 'Montant exact',
  'deposit.network': 'Réseau',
  'deposit.networkValue': '{network} (ID de chaîne {chainId})',
  'deposit.contract': 'Contrat {symbol}',
  'deposit.copyAddress': 'Copier l’adresse',
  'deposit.copyAmount': 'Copier le montant',

  'solanaPay.heading': 'Payer {amount} depuis n’importe quel portefeuille Solana',
  'solanaPay.qrLabel': 'Code QR Solana Pay\u00a0: {amount} sur {network}',
  'solanaPay.caption': 'Scannez avec un portefeuille Solana Pay. Il envoie exactement {amount} sur {network}.',
  'solanaPay.open': 'Ouvrir dans un portefeuille Solana',
  'solanaPay.copyRequest': 'Copier la demande Solana Pay',
  'solanaPay.feePaid':
    'Pas de SOL pour les frais\u00a0? Dans un portefeuille qui accepte les demandes de transaction Solana Pay, les frais peuvent être pris en charge pour vous\u00a0: {link}',
  'solanaPay.feePaidLink': 'Payer sans frais de réseau',
  'solanaPay.walletMessage': 'Paiement {reference}',

  'wallet.payWith': 'Payer avec {wallet}',
  'wallet.payWithUnnamed': 'Payer avec un portefeuille du navigateur',
  'wallet.sendsOnly':
    '{wallet} ne signe qu’en envoyant lui-même la transaction, ce que ce paiement ne peut pas utiliser.',
  'wallet.listTitle': 'Payer {amount} sur {network} avec',
  'wallet.noneEvm':
    'Aucun portefeuille EVM n’a été trouvé dans ce navigateur pour payer sur {network}. Scannez le code QR avec un portefeuille sur téléphone, ou choisissez un autre réseau.',
  'wallet.noneSolana':
    'Aucun portefeuille Solana n’a été trouvé dans ce navigateur pour payer sur {network}. Scannez le code QR avec un portefeuille sur téléphone, ou choisissez un autre réseau.',
  'wallet.detailsFrameTitle': 'Vos informations pour ce paiement',
  'wallet.detailsExpired':
    'Le délai pour donner vos informations est écoulé. Réessayez pour obtenir un nouveau formulaire.',
  'wallet.detailsFailed':
    'Vos informations n’ont pas pu être prises en compte pour ce paiement. Réessayez, ou scannez le code QR avec un portefeuille sur téléphone.',
  'wallet.connecting': 'En attente de la connexion de {wallet}…',
  'wallet.connectingUnnamed': 'En attente de la connexion de votre portefeuille…',
  'wallet.noAccount': '{wallet} n’a partagé aucun compte. Déverrouillez-le ou créez un compte, puis réessayez.',
  'wallet.noAccountUnnamed':
    'Votre portefeuille n’a partagé aucun compte. Déverrouillez-le ou créez un compte, puis réessayez.',
  'wallet.gettingAmount': 'Calcul du montant pour {account}…',
  'wallet.notEnough':
    'Le compte {account} ne détient pas assez pour payer {amount} sur {network}. Approvisionnez-le ou changez de compte dans votre portefeuille, ou choisissez un autre moyen de paiement, puis réessayez.',
  'wallet.confirm': 'Confirmez le paiement dans {wallet}…',
  'wallet.confirmUnnamed': 'Confirmez le paiement dans votre portefeuille…',
  'wallet.sent': 'Paiement envoyé. En attente de la confirmation du réseau…',
  'wallet.declinedConnect': 'Vous avez refusé de connecter votre portefeuille. Réessayez quand vous serez prêt.',

  'walletError.declined':
    'Vous avez refusé la demande dans votre portefeuille\u00a0: rien n’a été payé. Réessayez quand vous serez prêt.',
  'walletError.unknownChain':
    'Votre portefeuille n’a pas pu passer sur le réseau {network}. Ajoutez {network} à votre portefeuille (ou passez-y vous-même), puis réessayez.',
  'walletError.reverted': 'La transaction a été rejetée par le réseau. Vérifiez votre solde et réessayez.',
  'walletError.unsupported':
    'Votre portefeuille ne peut pas effectuer ce mode de paiement. Choisissez une autre option ou scannez le code QR avec un portefeuille sur téléphone.',
  'walletError.provider':
    'Votre portefeuille a signalé un problème\u00a0: {problem}. Réessayez, ou scannez le code QR avec un portefeuille sur téléphone.',
  'walletError.unreachable': 'Impossible de joindre le service de paiement. Vérifiez votre connexion et réessayez.',
  'walletError.quoteExpired': 'Le prix proposé a expiré avant votre signature. Réessayez pour obtenir un nouveau prix.',
  'walletError.rateLimited': 'Trop de tentatives en peu de temps. Patientez un instant, puis réessayez.',
  'walletError.merchantNotActive':
    'Cette boutique n’accepte pas de paiements pour le moment\u00a0: rien n’a été débité. Contactez la boutique.',
  'walletError.refused':
    'Le service de paiement a refusé le paiement\u00a0: {problem} Réessayez, ou choisissez une autre option.',
  'walletError.other':
    'Un problème est survenu avec votre portefeuille. Réessayez, ou scannez le code QR avec un portefeuille sur téléphone.',

  'form.title': 'Vos informations pour {merchant}',
  'form.titleWithErrors': 'Erreur\u00a0: vos informations pour {merchant}',
  'form.heading': 'Vos informations',
  'form.lead': '{merchant} demande ces informations avant que vous payiez {amount}.',
  'form.errorSummary': 'Veuillez vérifier vos informations',
  'form.summaryItem': '{field}\u00a0: {problem}',
  'form.errorLabel': 'Erreur\u00a0:',
  'form.optional': '(facultatif)',
  'form.placeGroup': 'Lieu de naissance ou lieu de résidence (au moins l’un des deux)',
  'form.continue': 'Continuer',
  'form.fullName': 'Nom complet',
  'form.fullNameHint': 'Comme sur votre pièce d’identité',
  'form.dateOfBirth': 'Date de naissance',
  'form.dateOfBirthHint': 'AAAA-MM-JJ',
  'form.placeOfBirth': 'Lieu de naissance',
  'form.placeOfResidence': 'Lieu de résidence',
  'form.placeHint': 'Ville et pays',
  'form.termsAccepted': 'J’accepte les conditions de ce paiement',
  'form.termsAcceptedHint': 'Ces informations sont partagées avec le marchand pour ce paiement uniquement',
  'form.problem.fullNameMissing': 'Saisissez votre nom complet',
  'form.problem.dateOfBirthMissing': 'Saisissez votre date de naissance',
  'form.problem.placeMissing': 'Saisissez votre lieu de naissance ou votre lieu de résidence',
  'form.problem.termsNotAccepted': 'Acceptez les conditions pour continuer',
  'form.problem.notADate': 'Saisissez une date réelle au format AAAA-MM-JJ',
  'form.problem.dateNotPast': 'Une date de naissance doit être dans le passé',
  'form.problem.tooLong': {
    one: 'Utilisez au plus {count} caractère',
    many: 'Utilisez au plus {count} de caractères',
    other: 'Utilisez au plus {count} caractères',
  },
  'form.problem.invalid': 'Cette réponse n’est pas valide',
  'form.done.heading': 'Informations reçues',
  'form.done.text': 'Merci. {merchant} a bien vos informations\u00a0; retournez dans votre portefeuille pour payer.',
  'form.expired.heading': 'Ce lien a expiré',
  'form.expired.text': 'Le délai pour donner vos informations pour ce paiement est écoulé.',
  'form.invalid.heading': 'Ce lien n’est pas valide',
  'form.invalid.text': 'Il n’a pas été émis par ce service pour un paiement, ou il a été modifié.',
  'form.notPayable.heading': 'Ce paiement ne peut plus être payé',
  'form.notPayable.text': 'Ce paiement n’attend plus d’être payé\u00a0: aucune information n’est nécessaire.',
  'form.unavailable.heading': 'Impossible de recueillir vos informations pour le moment',
  'form.unavailable.text': 'Ce service n’est pas configuré pour conserver les informations des acheteurs.',
  'form.startAgain': 'Retournez dans votre portefeuille et recommencez le paiement.',
  'link.title': 'Payer {merchant}',
  'link.price': 'Prix',
  'link.quantity': 'Quantité',
  'link.yourAmount': 'Montant en {currency}',
  'link.amountBetween': 'De {minimum} à {maximum}.',
  'link.continue': 'Continuer vers le paiement',
  'link.reference': 'Lien de paiement {link}',
  'link.problem.amountMissing': 'Saisissez un montant.',
  'link.problem.amountNotANumber': 'Saisissez le montant sous forme de nombre, par exemple {example}.',
  'link.problem.amountBelow': 'Le montant doit être d’au moins {minimum}.',
  'link.problem.amountAbove': 'Le montant doit être d’au plus {maximum}.',
  'link.problem.quantity': 'Choisissez une quantité de 1 à {maximum}.',
  'link.problem.pageUsed':
    'Cette page a déjà été envoyée avec un autre montant. Vérifiez le montant et continuez à nouveau.',
  'link.inactive.heading': 'Ce lien n’accepte aucun paiement',
  'link.inactive.text': '{merchant} a désactivé ce lien de paiement. Demandez à {merchant} un autre moyen de payer.',
  'link.expired.heading': 'Ce lien a pris fin',
  'link.expired.text': 'Ce lien de paiement de {merchant} n’est plus ouvert. Demandez-en un nouveau à {merchant}.',
  'link.spent.heading': 'Ce lien est épuisé',
  'link.spent.text': 'Ce lien de paiement a reçu autant de paiements que {merchant} le permet.',
  'link.allTaken.heading': 'Tout est réservé pour l’instant',
  'link.allTaken.text':
    'D’autres acheteurs paient ce qui reste. Un paiement non terminé libère sa place : réessayez dans quelques minutes.',
  'link.tryAgain': 'Réessayer',
  'link.notFound.title': 'Lien de paiement introuvable',
  'link.notFound.text': 'Vérifiez l’adresse ou redemandez le lien au commerçant.',
};
