import type { Message } from './message.ts';

/**
 * The checkout's words in English. This catalogue defines the keys: every other language's catalogue must have the
 * same keys (a type error otherwise), the same placeholders and a form for each of its plural categories.
 */
export const en = {
  'page.title': 'Pay {amount} to {merchant}',
  'page.eyebrow': 'Pay',
  'page.amount': 'Amount',
  'page.timeLeft': 'Time left',
  'page.minutesLeft': { one: '{count} minute left', other: '{count} minutes left' },
  'page.underAMinuteLeft': 'Less than a minute left',
  'page.reference': 'Reference {reference}',
  'page.chooseHowToPay': 'Choose how to pay',
  'page.showAllWays': { one: 'Show all {count} way to pay', other: 'Show all {count} ways to pay' },
  'page.walletsNeedScript':
    'Browser wallets need JavaScript: turn it on to pay from this device, or scan the QR code with a phone wallet.',
  'page.detailsAsked':
    'This payment asks for a few details about you before you pay. They go to the payment service only.',
  'page.tryAgain': 'Try again',
  'page.or': 'or',
  'page.scanToPay': 'Scan to pay',
  'page.scanCaption': "Scan with your phone's wallet app.",
  'page.qrLabel': 'QR code of the payment link',
  'page.openLink': 'Or open the payment link in a wallet: {link}',
  'page.waiting': 'Waiting for your payment',
  'page.otherDevice': 'Open this page on another device',
  'page.otherDeviceCaption':
    "Scan with a phone's camera to continue there, or with a wallet app that pays payment links.",
  'page.returning': 'Returning you to {merchant}…',
  'page.continueTo': 'Continue to {merchant}',
  'page.copied': 'Copied',
  'way.scan': 'Scan with a wallet app',
  'way.send': 'Send to an address',

  'status.notTaking.heading': 'Not taking payments',
  'status.notTaking.text':
    '{merchant} is not taking payments at the moment, so nothing is due now. Contact {merchant} before you pay anything.',
  'status.processing.heading': 'Payment sent',
  'status.processing.text': 'Your payment is being confirmed on the network. This page updates by itself.',
  'status.processing.waiting': 'Confirming',
  'status.succeeded.heading': 'Payment complete',
  'status.succeeded.text': '{merchant} received your payment of {amount}.',
  'status.succeeded.paidWith': 'Paid with {amount}.',
  'status.succeeded.paidWithOn': 'Paid with {amount} on {network}.',
  'status.succeeded.viewTransaction': 'View transaction',
  'status.failed.heading': 'Payment failed',
  'status.expired.heading': 'Payment expired',
  'status.expired.text': 'The time to pay this link has run out. Ask {merchant} for a new payment link.',
  'status.cancelled.heading': 'Payment cancelled',
  'status.cancelled.text':
    'This payment was cancelled, so nothing is due. Ask {merchant} for a new payment link if you still want to pay.',

  'announce.requiresAction': 'Waiting for your payment.',
  'announce.processing': 'Payment sent; confirming on the network.',
  'announce.succeeded': 'Payment complete.',
  'announce.failed': 'Payment failed.',
  'announce.expired': 'Payment expired.',
  'announce.cancelled': 'Payment cancelled.',

  'failure.underpaid':
    'Less than the payment asks arrived before it expired. What you sent can be sent back to you: contact {merchant} and give them the reference below.',
  'failure.notMined':
    'Your transfer was not confirmed on the network in time. If your wallet shows it as sent, contact {merchant} and give them the reference below.',
  'failure.other':
    'The payment did not go through. If your wallet shows it as sent, contact {merchant} and give them the reference below.',

  'notFound.title': 'Payment not found',
  'notFound.text':
    'This payment link does not match any payment. Check that the link is complete, or ask the shop for a new one.',

  'deposit.heading': 'Pay {amount} from any wallet',
  'deposit.headingRest': 'Send the remaining {amount}',
  'deposit.received': 'Received {amount} so far, less than the payment asks.',
  'deposit.scanHint':
    'Scan this code with a wallet app, or open it in one on this device: the address, token and exact amount are filled in for you.',
  'deposit.open': 'Open in a wallet app',
  'deposit.sendHint':
    "From any wallet, send exactly this amount on {network} to this payment's own address. If less arrives, the rest is asked for here; another token does not pay it.",
  'deposit.qrLabel': 'QR code of a request to send {amount} on {network}',
  'deposit.addressQrLabel': "QR code of the payment's address on {network}",
  'deposit.address': 'Address',
  'deposit.exactAmount': 'Exact amount',
  'deposit.network': 'Network',
  'deposit.networkValue': '{network} (chain id {chainId})',
  'deposit.contract': '{symbol} contract',
  'deposit.copyAddress': 'Copy address',
  'deposit.copyAmount': 'Copy amount',

  'solanaPay.heading': 'Pay {amount} from any Solana wallet',
  'solanaPay.qrLabel': 'Solana Pay QR code: {amount} on {network}',
  'solanaPay.caption': 'Scan with a Solana Pay wallet. It sends exactly {amount} on {network}.',
  'solanaPay.open': 'Open in a Solana wallet',
  'solanaPay.copyRequest': 'Copy the Solana Pay request',
  'solanaPay.feePaid':
    'No SOL for the fee? In a wallet that takes Solana Pay transaction requests, the fee can be paid for you: {link}',
  'solanaPay.feePaidLink': 'Pay with the fee paid for you',
  'solanaPay.walletMessage': 'Payment {reference}',

  'wallet.payWith': 'Pay with {wallet}',
  'wallet.payWithUnnamed': 'Pay with a browser wallet',
  'wallet.sendsOnly': '{wallet} signs only by sending the transaction itself, which this payment cannot use.',
  'wallet.listTitle': 'Pay {amount} on {network} with',
  'wallet.noneEvm':
    'No EVM wallet was found in this browser to pay on {network}. Scan the QR code with a phone wallet, or choose another network.',
  'wallet.noneSolana':
    'No Solana wallet was found in this browser to pay on {network}. Scan the QR code with a phone wallet, or choose another network.',
  'wallet.detailsFrameTitle': 'Your details for this payment',
  'wallet.detailsExpired': 'The time to give your details ran out. Try again to get a new form.',
  'wallet.detailsFailed':
    'Your details could not be taken for this payment. Try again, or scan the QR code with a phone wallet.',
  'wallet.connecting': 'Waiting for {wallet} to connect…',
  'wallet.connectingUnnamed': 'Waiting for your wallet to connect…',
  'wallet.noAccount': '{wallet} shared no account. Unlock it or create an account, then try again.',
  'wallet.noAccountUnnamed': 'Your wallet shared no account. Unlock it or create an account, then try again.',
  'wallet.gettingAmount': 'Getting the amount for {account}…',
  'wallet.notEnough':
    'The account {account} does not hold enough to pay {amount} on {network}. Top it up or switch accounts in your wallet, or choose another way to pay, then try again.',
  'wallet.confirm': 'Confirm the payment in {wallet}…',
  'wallet.confirmUnnamed': 'Confirm the payment in your wallet…',
  'wallet.sent': 'Payment sent. Waiting for the network to confirm it…',
  'wallet.declinedConnect': 'You declined to connect your wallet. Try again when you are ready.',

  'walletError.declined': 'You declined the request in your wallet, so nothing was paid. Try again when you are ready.',
  'walletError.unknownChain':
    'Your wallet could not switch to the {network} network. Add {network} to your wallet (or switch to it yourself), then try again.',
  'walletError.reverted': 'The transaction was rejected by the network. Check your balance and try again.',
  'walletError.unsupported':
    'Your wallet cannot carry out this way of paying. Choose another option or scan the QR code with a phone wallet.',
  'walletError.provider':
    'Your wallet reported a problem: {problem}. Try again, or scan the QR code with a phone wallet.',
  'walletError.unreachable': 'We could not reach the payment service. Check your connection and try again.',
  'walletError.quoteExpired': 'The price quote ran out before you signed. Try again to get a fresh quote.',
  'walletError.rateLimited': 'Too many attempts in a short time. Wait a moment, then try again.',
  'walletError.merchantNotActive':
    'This shop is not taking payments at the moment, so nothing was charged. Contact the shop.',
  'walletError.refused': 'The payment service refused the payment: {problem} Try again, or choose another option.',
  'walletError.other': 'Something went wrong with your wallet. Try again, or scan the QR code with a phone wallet.',

  'form.title': 'Your details for {merchant}',
  'form.titleWithErrors': 'Error: Your details for {merchant}',
  'form.heading': 'Your details',
  'form.lead': '{merchant} asks for these details before you pay {amount}.',
  'form.errorSummary': 'Please check your details',
  'form.summaryItem': '{field}: {problem}',
  'form.errorLabel': 'Error:',
  'form.optional': '(optional)',
  'form.placeGroup': 'Place of birth or Place of residence (at least one)',
  'form.continue': 'Continue',
  'form.fullName': 'Full name',
  'form.fullNameHint': 'As on your identity document',
  'form.dateOfBirth': 'Date of birth',
  'form.dateOfBirthHint': 'YYYY-MM-DD',
  'form.placeOfBirth': 'Place of birth',
  'form.placeOfResidence': 'Place of residence',
  'form.placeHint': 'City and country',
  'form.termsAccepted': 'I accept the terms of this payment',
  'form.termsAcceptedHint': 'These details are shared with the merchant for this payment only',
  'form.problem.fullNameMissing': 'Enter your full name',
  'form.problem.dateOfBirthMissing': 'Enter your date of birth',
  'form.problem.placeMissing': 'Enter your place of birth or your place of residence',
  'form.problem.termsNotAccepted': 'Accept the terms to continue',
  'form.problem.notADate': 'Enter a real date as YYYY-MM-DD',
  'form.problem.dateNotPast': 'A date of birth must be in the past',
  'form.problem.tooLong': { one: 'Use at most {count} character', other: 'Use at most {count} characters' },
  'form.problem.invalid': 'This answer is not valid',
  'form.done.heading': 'Details received',
  'form.done.text': 'Thank you. {merchant} has your details; return to your wallet to pay.',
  'form.expired.heading': 'This link has expired',
  'form.expired.text': 'The time to give your details for this payment is over.',
  'form.invalid.heading': 'This link is not valid',
  'form.invalid.text': 'It was not issued by this service for a payment, or it was changed.',
  'form.notPayable.heading': 'This payment can no longer be paid',
  'form.notPayable.text': 'The payment is no longer waiting to be paid, so no details are needed.',
  'form.unavailable.heading': 'Details cannot be taken now',
  'form.unavailable.text': 'This service is not set up to store buyer details.',
  'form.startAgain': 'Return to your wallet and start the payment again.',
} as const satisfies Record<string, Message>;
