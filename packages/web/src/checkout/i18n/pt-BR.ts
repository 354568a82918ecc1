import type { Catalogue } from './catalogue.ts';

export const ptBR: Catalogue = {
  'page.title': 'Pagar {amount} a {merchant}',
  'page.eyebrow': 'Pagar a',
  'page.amount': 'Valor',
  'page.timeLeft': 'Tempo restante',
  'page.minutesLeft': {
    one: 'Falta {count} minuto',
    many: 'Faltam {count} de minutos',
    other: 'Faltam {count} minutos',
  },
  'page.underAMinuteLeft': 'Falta menos de um minuto',
  'page.reference': 'Referência {reference}',
  'page.chooseHowToPay': 'Escolha como pagar',
  'page.showAllWays': {
    one: 'Mostrar a {count} forma de pagamento',
    many: 'Mostrar as {count} de formas de pagamento',
    other: 'Mostrar as {count} formas de pagamento',
  },
  'page.walletsNeedScript':
    'As carteiras do navegador precisam de JavaScript: ative-o para pagar deste dispositivo ou escaneie o código QR com uma carteira no celular.',
  'page.detailsAsked':
    'Este pagamento pede alguns dados sobre você antes de pagar. Eles vão apenas para o serviço de pagamento.',
  'page.tryAgain': 'Tentar de novo',
  'page.or': 'ou',
  'page.scanToPay': 'Escaneie para pagar',
  'page.scanCaption': 'Escaneie com o app de carteira do seu celular.',
  'page.qrLabel': 'Código QR do link de pagamento',
  'page.openLink': 'Ou abra o link de pagamento em uma carteira: {link}',
  'page.waiting': 'Aguardando seu pagamento',
  'page.otherDevice': 'Abrir esta página em outro dispositivo',
  'page.otherDeviceCaption':
    'Escaneie com a câmera de um celular para continuar nele, ou com um app de carteira que pague links de pagamento.',
  'page.returning': 'Voltando para {merchant}…',
  'page.continueTo': 'Continuar para {merchant}',
  'page.copied': 'Copiado',
  'way.scan': 'Escanear com um app de carteira',
  'way.send': 'Enviar para um endereço',

  'status.notTaking.heading': 'Não está aceitando pagamentos',
  'status.notTaking.text':
    '{merchant} não está aceitando pagamentos no momento, então nada é devido agora. Fale com {merchant} antes de pagar qualquer coisa.',
  'status.processing.heading': 'Pagamento enviado',
  'status.processing.text': 'Seu pagamento está sendo confirmado na rede. Esta página se atualiza sozinha.',
  'status.processing.waiting': 'Confirmando',
  'status.succeeded.heading': 'Pagamento concluído',
  'status.succeeded.text': '{merchant} recebeu seu pagamento de {amount}.',
  'status.succeeded.paidWith': 'Pago com {amount}.',
  'status.succeeded.paidWithOn': 'Pago com {amount} na rede {network}.',
  'status.succeeded.viewTransaction': 'Ver transação',
  'status.failed.heading': 'Falha no pagamento',
  'status.expired.heading': 'Pagamento expirado',
  'status.expired.text': 'O prazo para pagar este link acabou. Peça a {merchant} um novo link de pagamento.',
  'status.cancelled.heading': 'Pagamento cancelado',
  'status.cancelled.text':
    'Este pagamento foi cancelado, então nada é devido. Peça a {merchant} um novo link de pagamento se ainda quiser pagar.',

  'announce.requiresAction': 'Aguardando seu pagamento.',
  'announce.processing': 'Pagamento enviado; confirmando na rede.',
  'announce.succeeded': 'Pagamento concluído.',
  'announce.failed': 'Falha no pagamento.',
  'announce.expired': 'Pagamento expirado.',
  'announce.cancelled': 'Pagamento cancelado.',

  'failure.underpaid':
    'Chegou menos do que o pagamento pede antes de expirar. O que você enviou pode ser devolvido: fale com {merchant} e informe a referência abaixo.',
  'failure.notMined':
    'Sua transferência não foi confirmada na rede a tempo. Se sua carteira a mostra como enviada, fale com {merchant} e informe a referência abaixo.',
  'failure.other':
    'O pagamento não foi concluído. Se sua carteira o mostra como enviado, fale com {merchant} e informe a referência abaixo.',

  'notFound.title': 'Pagamento não encontrado',
  'notFound.text':
    'Este link de pagamento não corresponde a nenhum pagamento. Verifique se o link está completo ou peça um novo à loja.',

  'deposit.heading': 'Pague {amount} de qualquer carteira',
  'deposit.headingRest': 'Envie os {amount} restantes',
  'deposit.received': '{amount} recebidos até agora, menos do que o pagamento pede.',
  'deposit.scanHint':
    'Escaneie este código com um app de carteira, ou abra-o em um neste dispositivo: o endereço, o token e o valor exato são preenchidos para você.',
  'deposit.open': 'Abrir em um app de carteira',
  'deposit.sendHint':
    'De qualquer carteira, envie exatamente este valor na rede {network} para o endereço próprio deste pagamento. Se chegar menos, o restante é pedido aqui; outro token não o paga.',
  'deposit.qrLabel': 'Código QR de um pedido para enviar {amount} na rede {network}',
  'deposit.addressQrLabel': 'Código QR do endereço do pagamento na rede {network}',
  'deposit.address': 'Endereço',
  'deposit.exactAmount': 'Valor exato',
  'deposit.network': 'Rede',
  'deposit.networkValue': '{network} (ID da chain {chainId})',
  'deposit.contract': 'Contrato do {symbol}',
  'deposit.copyAddress': 'Copiar endereço',
  'deposit.copyAmount': 'Copiar valor',

  'solanaPay.heading': 'Pague {amount} de qualquer carteira Solana',
  'solanaPay.qrLabel': 'Código QR do Solana Pay: {amount} na rede {network}',
  'solanaPay.caption':
    'Escaneie com uma carteira compatível com Solana Pay. Ela envia exatamente {amount} na rede {network}.',
  'solanaPay.open': 'Abrir em uma carteira Solana',
  'solanaPay.copyRequest': 'Copiar o pedido do Solana Pay',
  'solanaPay.feePaid':
    'Sem SOL para a taxa? Em uma carteira que aceita pedidos de transação do Solana Pay, a taxa pode ser paga por você: {link}',
  'solanaPay.feePaidLink': 'Pagar com a taxa coberta',
  'solanaPay.walletMessage': 'Pagamento {reference}',

  'wallet.payWith': 'Pagar com {wallet}',
  'wallet.payWithUnnamed': 'Pagar com uma carteira do navegador',
  'wallet.sendsOnly': '{wallet} só assina enviando a própria transação, o que este pagamento não pode usar.',
  'wallet.listTitle': 'Pagar {amount} na rede {network} com',
  'wallet.noneEvm':
    'Nenhuma carteira EVM foi encontrada neste navegador para pagar na rede {network}. Escaneie o código QR com uma carteira no celular ou escolha outra rede.',
  'wallet.noneSolana':
    'Nenhuma carteira Solana foi encontrada neste navegador para pagar na rede {network}. Escaneie o código QR com uma carteira no celular ou escolha outra rede.',
  'wallet.detailsFrameTitle': 'Seus dados para este pagamento',
  'wallet.detailsExpired': 'O prazo para informar seus dados acabou. Tente de novo para receber um novo formulário.',
  'wallet.detailsFailed':
    'Não foi possível registrar seus dados para este pagamento. Tente de novo ou escaneie o código QR com uma carteira no celular.',
  'wallet.connecting': 'Aguardando {wallet} se conectar…',
  'wallet.connectingUnnamed': 'Aguardando sua carteira se conectar…',
  'wallet.noAccount': '{wallet} não compartilhou nenhuma conta. Desbloqueie-a ou crie uma conta e tente de novo.',
  'wallet.noAccountUnnamed':
    'Sua carteira não compartilhou nenhuma conta. Desbloqueie-a ou crie uma conta e tente de novo.',
  'wallet.gettingAmount': 'Obtendo o valor para {account}…',
  'wallet.notEnough':
    'A conta {account} não tem o suficiente para pagar {amount} na rede {network}. Adicione saldo ou troque de conta na sua carteira, ou escolha outra forma de pagamento, e tente de novo.',
  'wallet.confirm': 'Confirme o pagamento em {wallet}…',
  'wallet.confirmUnnamed': 'Confirme o pagamento na sua carteira…',
  'wallet.sent': 'Pagamento enviado. Aguardando a confirmação da rede…',
  'wallet.declinedConnect': 'Você recusou conectar sua carteira. Tente de novo quando estiver pronto.',

  'walletError.declined':
    'Você recusou o pedido na sua carteira, então nada foi pago. Tente de novo quando estiver pronto.',
  'walletError.unknownChain':
    'Sua carteira não conseguiu mudar para a rede {network}. Adicione {network} à sua carteira (ou mude para ela você mesmo) e tente de novo.',
  'walletError.reverted': 'A transação foi rejeitada pela rede. Verifique seu saldo e tente de novo.',
  'walletError.unsupported':
    'Sua carteira não consegue realizar esta forma de pagamento. Escolha outra opção ou escaneie o código QR com uma carteira no celular.',
  'walletError.provider':
    'Sua carteira relatou um problema: {problem}. Tente de novo ou escaneie o código QR com uma carteira no celular.',
  'walletError.unreachable': 'Não conseguimos acessar o serviço de pagamento. Verifique sua conexão e tente de novo.',
  'walletError.quoteExpired': 'A cotação expirou antes de você assinar. Tente de novo para obter uma nova cotação.',
  'walletError.rateLimited': 'Muitas tentativas em pouco tempo. Aguarde um momento e tente de novo.',
  'walletError.merchantNotActive':
    'Esta loja não está aceitando pagamentos no momento, então nada foi cobrado. Fale com a loja.',
  'walletError.refused': 'O serviço de pagamento recusou o pagamento: {problem} Tente de novo ou escolha outra opção.',
  'walletError.other':
    'Algo deu errado com sua carteira. Tente de novo ou escaneie o código QR com uma carteira no celular.',

  'form.title': 'Seus dados para {merchant}',
  'form.titleWithErrors': 'Erro: seus dados para {merchant}',
  'form.heading': 'Seus dados',
  'form.lead': '{merchant} pede estes dados antes de você pagar {amount}.',
  'form.errorSummary': 'Confira seus dados',
  'form.summaryItem': '{field}: {problem}',
  'form.errorLabel': 'Erro:',
  'form.optional': '(opcional)',
  'form.placeGroup': 'Local de nascimento ou local de residência (pelo menos um)',
  'form.continue': 'Continuar',
  'form.fullName': 'Nome completo',
  'form.fullNameHint': 'Como no seu documento de identidade',
  'form.dateOfBirth': 'Data de nascimento',
  'form.dateOfBirthHint': 'AAAA-MM-DD',
  'form.placeOfBirth': 'Local de nascimento',
  'form.placeOfResidence': 'Local de residência',
  'form.placeHint': 'Cidade e país',
  'form.termsAccepted': 'Aceito os termos deste pagamento',
  'form.termsAcceptedHint': 'Estes dados são compartilhados com o lojista apenas para este pagamento',
  'form.problem.fullNameMissing': 'Informe seu nome completo',
  'form.problem.dateOfBirthMissing': 'Informe sua data de nascimento',
  'form.problem.placeMissing': 'Informe seu local de nascimento ou seu local de residência',
  'form.problem.termsNotAccepted': 'Aceite os termos para continuar',
  'form.problem.notADate': 'Informe uma data real no formato AAAA-MM-DD',
  'form.problem.dateNotPast': 'A data de nascimento precisa estar no passado',
  'form.problem.tooLong': {
    one: 'Use no máximo {count} caractere',
    many: 'Use no máximo {count} de caracteres',
    other: 'Use no máximo {count} caracteres',
  },
  'form.problem.invalid': 'Esta resposta não é válida',
  'form.done.heading': 'Dados recebidos',
  'form.done.text': 'Obrigado. {merchant} recebeu seus dados; volte à sua carteira para pagar.',
  'form.expired.heading': 'Este link expirou',
  'form.expired.text': 'O prazo para informar seus dados para este pagamento acabou.',
  'form.invalid.heading': 'Este link não é válido',
  'form.invalid.text': 'Ele não foi emitido por este serviço para um pagamento, ou foi alterado.',
  'form.notPayable.heading': 'Este pagamento não pode mais ser pago',
  'form.notPayable.text': 'O pagamento não está mais aguardando, então nenhum dado é necessário.',
  'form.unavailable.heading': 'Não é possível registrar dados agora',
  'form.unavailable.text': 'Este serviço não está configurado para guardar dados de compradores.',
  'form.startAgain': 'Volte à sua carteira e comece o pagamento de novo.',
};
