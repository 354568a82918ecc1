import type { Catalogue } from './catalogue.ts';

export const es: Catalogue = {
  'page.title': 'Pagar {amount} a {merchant}',
  'page.eyebrow': 'Pagar a',
  'page.amount': 'Importe',
  'page.timeLeft': 'Tiempo restante',
  'page.minutesLeft': {
    one: 'Queda {count} minuto',
    many: 'Quedan {count} de minutos',
    other: 'Quedan {count} minutos',
  },
  'page.underAMinuteLeft': 'Queda menos de un minuto',
  'page.reference': 'Referencia {reference}',
  'page.chooseHowToPay': 'Elige cómo pagar',
  'page.showAllWays': {
    one: 'Mostrar la {count} forma de pago',
    many: 'Mostrar las {count} de formas de pago',
    other: 'Mostrar las {count} formas de pago',
  },
  'page.walletsNeedScript':
    'Los monederos del navegador necesitan JavaScript: actívalo para pagar desde este dispositivo o escanea el código QR con un monedero del móvil.',
  'page.detailsAsked': 'Este pago pide algunos datos sobre ti antes de pagar. Solo los recibe el servicio de pago.',
  'page.tryAgain': 'Reintentar',
  'page.or': 'o',
  'page.scanToPay': 'Escanea para pagar',
  'page.scanCaption': 'Escanea con la aplicación de monedero de tu móvil.',
  'page.qrLabel': 'Código QR del enlace de pago',
  'page.openLink': 'O abre el enlace de pago en un monedero: {link}',
  'page.waiting': 'Esperando tu pago',
  'page.otherDevice': 'Abrir esta página en otro dispositivo',
  'page.otherDeviceCaption':
    'Escanea con la cámara de un móvil para seguir allí, o con una aplicación de monedero que pague enlaces de pago.',
  'page.returning': 'Volviendo a {merchant}…',
  'page.continueTo': 'Continuar a {merchant}',
  'page.copied': 'Copiado',
  'way.scan': 'Escanear con un monedero',
  'way.send': 'Enviar a una dirección',

  'status.notTaking.heading': 'No acepta pagos',
  'status.notTaking.text':
    '{merchant} no acepta pagos en este momento, así que ahora no se debe nada. Ponte en contacto con {merchant} antes de pagar nada.',
  'status.processing.heading': 'Pago enviado',
  'status.processing.text': 'Tu pago se está confirmando en la red. Esta página se actualiza sola.',
  'status.processing.waiting': 'Confirmando',
  'status.succeeded.heading': 'Pago completado',
  'status.succeeded.text': '{merchant} ha recibido tu pago de {amount}.',
  'status.succeeded.paidWith': 'Pagado con {amount}.',
  'status.succeeded.paidWithOn': 'Pagado con {amount} en {network}.',
  'status.succeeded.viewTransaction': 'Ver la transacción',
  'status.failed.heading': 'El pago ha fallado',
  'status.expired.heading': 'Pago caducado',
  'status.expired.text': 'Se acabó el tiempo para pagar este enlace. Pide a {merchant} un nuevo enlace de pago.',
  'status.cancelled.heading': 'Pago cancelado',
  'status.cancelled.text':
    'Este pago se canceló, así que no se debe nada. Pide a {merchant} un nuevo enlace de pago si aún quieres pagar.',

  'announce.requiresAction': 'Esperando tu pago.',
  'announce.processing': 'Pago enviado; confirmándose en la red.',
  'announce.succeeded': 'Pago completado.',
  'announce.failed': 'El pago ha fallado.',
  'announce.expired': 'Pago caducado.',
  'announce.cancelled': 'Pago cancelado.',

  'failure.underpaid':
    'Llegó menos de lo que pide el pago antes de que caducara. Lo que enviaste se te puede devolver: ponte en contacto con {merchant} e indica la referencia de abajo.',
  'failure.notMined':
    'Tu transferencia no se confirmó en la red a tiempo. Si tu monedero la muestra como enviada, ponte en contacto con {merchant} e indica la referencia de abajo.',
  'failure.other':
    'El pago no se completó. Si tu monedero lo muestra como enviado, ponte en contacto con {merchant} e indica la referencia de abajo.',

  'notFound.title': 'Pago no encontrado',
  'notFound.text':
    'Este enlace de pago no corresponde a ningún pago. Comprueba que el enlace esté completo o pide uno nuevo a la tienda.',

  'deposit.heading': 'Paga {amount} desde cualquier monedero',
  'deposit.headingRest': 'Envía los {amount} restantes',
  'deposit.received': 'Recibidos {amount} hasta ahora, menos de lo que pide el pago.',
  'deposit.scanHint':
    'Escanea este código con una aplicación de monedero, o ábrelo en una de este dispositivo: la dirección, el token y el importe exacto se rellenan por ti.',
  'deposit.open': 'Abrir en una aplicación de monedero',
  'deposit.sendHint':
    'Desde cualquier monedero, envía exactamente este importe en {network} a la dirección propia de este pago. Si llega menos, el resto se pide aquí; otro token no lo paga.',
  'deposit.qrLabel': 'Código QR de una solicitud para enviar {amount} en {network}',
  'deposit.addressQrLabel': 'Código QR de la dirección del pago en {network}',
  'deposit.address': 'Dirección',
  'deposit.exactAmount': 'Importe exacto',
  'deposit.network': 'Red',
  'deposit.networkValue': '{network} (ID de cadena {chainId})',
  'deposit.contract': 'Contrato de {symbol}',
  'deposit.copyAddress': 'Copiar dirección',
  'deposit.copyAmount': 'Copiar importe',

  'solanaPay.heading': 'Paga {amount} desde cualquier monedero de Solana',
  'solanaPay.qrLabel': 'Código QR de Solana Pay: {amount} en {network}',
  'solanaPay.caption': 'Escanea con un monedero compatible con Solana Pay. Envía exactamente {amount} en {network}.',
  'solanaPay.open': 'Abrir en un monedero de Solana',
  'solanaPay.copyRequest': 'Copiar la solicitud de Solana Pay',
  'solanaPay.feePaid':
    '¿No tienes SOL para la comisión? En un monedero que acepte solicitudes de transacción de Solana Pay, la comisión se puede pagar por ti: {link}',
  'solanaPay.feePaidLink': 'Pagar con la comisión cubierta',
  'solanaPay.walletMessage': 'Pago {reference}',

  'wallet.payWith': 'Pagar con {wallet}',
  'wallet.payWithUnnamed': 'Pagar con un monedero del navegador',
  'wallet.sendsOnly': '{wallet} solo firma enviando la transacción por sí mismo, algo que este pago no puede usar.',
  'wallet.listTitle': 'Pagar {amount} en {network} con',
  'wallet.noneEvm':
    'No se encontró ningún monedero EVM en este navegador para pagar en {network}. Escanea el código QR con un monedero del móvil o elige otra red.',
  'wallet.noneSolana':
    'No se encontró ningún monedero de Solana en este navegador para pagar en {network}. Escanea el código QR con un monedero del móvil o elige otra red.',
  'wallet.detailsFrameTitle': 'Tus datos para este pago',
  'wallet.detailsExpired':
    'Se acabó el tiempo para dar tus datos. Vuelve a intentarlo para obtener un formulario nuevo.',
  'wallet.detailsFailed':
    'No se pudieron registrar tus datos para este pago. Vuelve a intentarlo o escanea el código QR con un monedero del móvil.',
  'wallet.connecting': 'Esperando a que {wallet} se conecte…',
  'wallet.connectingUnnamed': 'Esperando a que tu monedero se conecte…',
  'wallet.noAccount': '{wallet} no compartió ninguna cuenta. Desbloquéalo o crea una cuenta y vuelve a intentarlo.',
  'wallet.noAccountUnnamed':
    'Tu monedero no compartió ninguna cuenta. Desbloquéalo o crea una cuenta y vuelve a intentarlo.',
  'wallet.gettingAmount': 'Obteniendo el importe para {account}…',
  'wallet.notEnough':
    'La cuenta {account} no tiene suficiente para pagar {amount} en {network}. Recárgala o cambia de cuenta en tu monedero, o elige otra forma de pago, y vuelve a intentarlo.',
  'wallet.confirm': 'Confirma el pago en {wallet}…',
  'wallet.confirmUnnamed': 'Confirma el pago en tu monedero…',
  'wallet.sent': 'Pago enviado. Esperando a que la red lo confirme…',
  'wallet.declinedConnect': 'Rechazaste conectar tu monedero. Vuelve a intentarlo cuando quieras.',

  'walletError.declined':
    'Rechazaste la solicitud en tu monedero, así que no se pagó nada. Vuelve a intentarlo cuando quieras.',
  'walletError.unknownChain':
    'Tu monedero no pudo cambiar a la red {network}. Añade {network} a tu monedero (o cámbiate a ella tú mismo) y vuelve a intentarlo.',
  'walletError.reverted': 'La red rechazó la transacción. Comprueba tu saldo y vuelve a intentarlo.',
  'walletError.unsupported':
    'Tu monedero no puede realizar esta forma de pago. Elige otra opción o escanea el código QR con un monedero del móvil.',
  'walletError.provider':
    'Tu monedero informó de un problema: {problem}. Vuelve a intentarlo o escanea el código QR con un monedero del móvil.',
  'walletError.unreachable':
    'No pudimos contactar con el servicio de pago. Comprueba tu conexión y vuelve a intentarlo.',
  'walletError.quoteExpired':
    'La cotización del precio caducó antes de que firmaras. Vuelve a intentarlo para obtener una nueva.',
  'walletError.rateLimited': 'Demasiados intentos en poco tiempo. Espera un momento y vuelve a intentarlo.',
  'walletError.merchantNotActive':
    'Esta tienda no acepta pagos en este momento, así que no se cobró nada. Ponte en contacto con la tienda.',
  'walletError.refused': 'El servicio de pago rechazó el pago: {problem} Vuelve a intentarlo o elige otra opción.',
  'walletError.other':
    'Algo salió mal con tu monedero. Vuelve a intentarlo o escanea el código QR con un monedero del móvil.',

  'form.title': 'Tus datos para {merchant}',
  'form.titleWithErrors': 'Error: tus datos para {merchant}',
  'form.heading': 'Tus datos',
  'form.lead': '{merchant} pide estos datos antes de que pagues {amount}.',
  'form.errorSummary': 'Revisa tus datos',
  'form.summaryItem': '{field}: {problem}',
  'form.errorLabel': 'Error:',
  'form.optional': '(opcional)',
  'form.placeGroup': 'Lugar de nacimiento o lugar de residencia (al menos uno)',
  'form.continue': 'Continuar',
  'form.fullName': 'Nombre completo',
  'form.fullNameHint': 'Como figura en tu documento de identidad',
  'form.dateOfBirth': 'Fecha de nacimiento',
  'form.dateOfBirthHint': 'AAAA-MM-DD',
  'form.placeOfBirth': 'Lugar de nacimiento',
  'form.placeOfResidence': 'Lugar de residencia',
  'form.placeHint': 'Ciudad y país',
  'form.termsAccepted': 'Acepto las condiciones de este pago',
  'form.termsAcceptedHint': 'Estos datos se comparten con el comercio solo para este pago',
  'form.problem.fullNameMissing': 'Escribe tu nombre completo',
  'form.problem.dateOfBirthMissing': 'Escribe tu fecha de nacimiento',
  'form.problem.placeMissing': 'Escribe tu lugar de nacimiento o tu lugar de residencia',
  'form.problem.termsNotAccepted': 'Acepta las condiciones para continuar',
  'form.problem.notADate': 'Escribe una fecha real con el formato AAAA-MM-DD',
  'form.problem.dateNotPast': 'La fecha de nacimiento debe estar en el pasado',
  'form.problem.tooLong': {
    one: 'Usa como máximo {count} carácter',
    many: 'Usa como máximo {count} de caracteres',
    other: 'Usa como máximo {count} caracteres',
  },
  'form.problem.invalid': 'Esta respuesta no es válida',
  'form.done.heading': 'Datos recibidos',
  'form.done.text': 'Gracias. {merchant} ya tiene tus datos; vuelve a tu monedero para pagar.',
  'form.expired.heading': 'Este enlace ha caducado',
  'form.expired.text': 'Se acabó el tiempo para dar tus datos para este pago.',
  'form.invalid.heading': 'Este enlace no es válido',
  'form.invalid.text': 'Este servicio no lo emitió para un pago, o se ha modificado.',
  'form.notPayable.heading': 'Este pago ya no se puede pagar',
  'form.notPayable.text': 'El pago ya no está pendiente, así que no se necesitan datos.',
  'form.unavailable.heading': 'Ahora no se pueden registrar datos',
  'form.unavailable.text': 'Este servicio no está configurado para guardar datos de compradores.',
  'form.startAgain': 'Vuelve a tu monedero y empieza el pago de nuevo.',
};
