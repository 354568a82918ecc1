import type { Catalogue } from './catalogue.ts';

export const ja: Catalogue = {
  'page.title': '{merchant} に {amount} を支払う',
  'page.eyebrow': 'お支払い先',
  'page.amount': '金額',
  'page.timeLeft': '残り時間',
  'page.minutesLeft': { other: '残り {count} 分' },
  'page.underAMinuteLeft': '残り 1 分未満',
  'page.reference': '参照番号 {reference}',
  'page.chooseHowToPay': 'お支払い方法を選択',
  'page.showAllWays': { other: 'お支払い方法を {count} 件すべて表示' },
  'page.walletsNeedScript':
    'ブラウザウォレットには JavaScript が必要です。この端末から支払うには JavaScript を有効にするか、スマートフォンのウォレットで QR コードを読み取ってください。',
  'page.detailsAsked':
    'このお支払いでは、支払いの前にお客様に関する情報をいくつか入力していただく必要があります。情報は決済サービスにのみ送られます。',
  'page.tryAgain': 'もう一度試す',
  'page.or': 'または',
  'page.scanToPay': 'スキャンして支払う',
  'page.scanCaption': 'スマートフォンのウォレットアプリで読み取ってください。',
  'page.qrLabel': '支払いリンクの QR コード',
  'page.openLink': 'または、ウォレットで支払いリンクを開いてください: {link}',
  'page.waiting': 'お支払いを待っています',
  'page.otherDevice': '別の端末でこのページを開く',
  'page.otherDeviceCaption':
    'スマートフォンのカメラで読み取ると、そちらで続けられます。支払いリンクに対応したウォレットアプリでも読み取れます。',
  'page.returning': '{merchant} に戻ります…',
  'page.continueTo': '{merchant} に進む',
  'page.copied': 'コピーしました',
  'way.scan': 'ウォレットアプリで読み取る',
  'way.send': 'アドレスに送金',

  'status.notTaking.heading': '現在お支払いを受け付けていません',
  'status.notTaking.text':
    '{merchant} は現在お支払いを受け付けていないため、今お支払いいただくものはありません。お支払いの前に {merchant} にお問い合わせください。',
  'status.processing.heading': '送金しました',
  'status.processing.text': 'お支払いをネットワーク上で確認しています。このページは自動で更新されます。',
  'status.processing.waiting': '確認中',
  'status.succeeded.heading': 'お支払いが完了しました',
  'status.succeeded.text': '{merchant} は {amount} のお支払いを受け取りました。',
  'status.succeeded.paidWith': '{amount} で支払い済み。',
  'status.succeeded.paidWithOn': '{network} の {amount} で支払い済み。',
  'status.succeeded.viewTransaction': '取引を表示',
  'status.failed.heading': 'お支払いに失敗しました',
  'status.expired.heading': 'お支払いの期限が切れました',
  'status.expired.text': 'このリンクでのお支払い期限が過ぎました。{merchant} に新しい支払いリンクを依頼してください。',
  'status.cancelled.heading': 'お支払いはキャンセルされました',
  'status.cancelled.text':
    'このお支払いはキャンセルされたため、お支払いいただくものはありません。引き続きお支払いを希望される場合は、{merchant} に新しい支払いリンクを依頼してください。',

  'announce.requiresAction': 'お支払いを待っています。',
  'announce.processing': '送金しました。ネットワーク上で確認しています。',
  'announce.succeeded': 'お支払いが完了しました。',
  'announce.failed': 'お支払いに失敗しました。',
  'announce.expired': 'お支払いの期限が切れました。',
  'announce.cancelled': 'お支払いはキャンセルされました。',

  'failure.underpaid':
    '期限までに届いた金額が請求額に足りませんでした。送金された分は返金できます。{merchant} に連絡し、下の参照番号をお伝えください。',
  'failure.notMined':
    '送金が時間内にネットワーク上で確認されませんでした。ウォレットで送金済みと表示されている場合は、{merchant} に連絡し、下の参照番号をお伝えください。',
  'failure.other':
    'お支払いは完了しませんでした。ウォレットで送金済みと表示されている場合は、{merchant} に連絡し、下の参照番号をお伝えください。',

  'notFound.title': 'お支払いが見つかりません',
  'notFound.text':
    'この支払いリンクに該当するお支払いはありません。リンクが欠けていないか確認するか、ショップに新しいリンクを依頼してください。',

  'deposit.heading': '任意のウォレットから {amount} を支払う',
  'deposit.headingRest': '残りの {amount} を送金',
  'deposit.received': 'これまでに {amount} を受け取りました。請求額に足りません。',
  'deposit.scanHint':
    'このコードをウォレットアプリで読み取るか、この端末のウォレットアプリで開いてください。アドレス、トークン、正確な金額が入力されます。',
  'deposit.open': 'ウォレットアプリで開く',
  'deposit.sendHint':
    '任意のウォレットから、{network} 上でこの金額をちょうど、このお支払い専用のアドレスに送金してください。不足した場合は残りをここで請求します。別のトークンではお支払いになりません。',
  'deposit.qrLabel': '{network} で {amount} を送金するリクエストの QR コード',
  'deposit.addressQrLabel': '{network} 上のこのお支払い専用アドレスの QR コード',
  'deposit.address': 'アドレス',
  'deposit.exactAmount': '正確な金額',
  'deposit.network': 'ネットワーク',
  'deposit.networkValue': '{network} (チェーン ID {chainId})',
  'deposit.contract': '{symbol} コントラクト',
  'deposit.copyAddress': 'アドレスをコピー',
  'deposit.copyAmount': '金額をコピー',

  'solanaPay.heading': '任意の Solana ウォレットから {amount} を支払う',
  'solanaPay.qrLabel': 'Solana Pay の QR コード: {network} の {amount}',
  'solanaPay.caption': 'Solana Pay 対応ウォレットで読み取ってください。{network} で {amount} をちょうど送金します。',
  'solanaPay.open': 'Solana ウォレットで開く',
  'solanaPay.copyRequest': 'Solana Pay リクエストをコピー',
  'solanaPay.feePaid':
    '手数料用の SOL がない場合は、Solana Pay のトランザクションリクエストに対応したウォレットなら手数料を負担してもらえます: {link}',
  'solanaPay.feePaidLink': '手数料の負担なしで支払う',
  'solanaPay.walletMessage': 'お支払い {reference}',

  'wallet.payWith': '{wallet} で支払う',
  'wallet.payWithUnnamed': 'ブラウザウォレットで支払う',
  'wallet.sendsOnly': '{wallet} はトランザクションを自ら送信する形でしか署名できないため、このお支払いには使えません。',
  'wallet.listTitle': '{network} で {amount} を支払うウォレット',
  'wallet.noneEvm':
    'このブラウザには {network} で支払える EVM ウォレットが見つかりませんでした。スマートフォンのウォレットで QR コードを読み取るか、別のネットワークを選択してください。',
  'wallet.noneSolana':
    'このブラウザには {network} で支払える Solana ウォレットが見つかりませんでした。スマートフォンのウォレットで QR コードを読み取るか、別のネットワークを選択してください。',
  'wallet.detailsFrameTitle': 'このお支払いのためのお客様情報',
  'wallet.detailsExpired': '情報入力の期限が切れました。もう一度試して新しいフォームを取得してください。',
  'wallet.detailsFailed':
    'このお支払いのための情報を受け付けられませんでした。もう一度試すか、スマートフォンのウォレットで QR コードを読み取ってください。',
  'wallet.connecting': '{wallet} の接続を待っています…',
  'wallet.connectingUnnamed': 'ウォレットの接続を待っています…',
  'wallet.noAccount':
    '{wallet} からアカウントが共有されませんでした。ロックを解除するかアカウントを作成してから、もう一度お試しください。',
  'wallet.noAccountUnnamed':
    'ウォレットからアカウントが共有されませんでした。ロックを解除するかアカウントを作成してから、もう一度お試しください。',
  'wallet.gettingAmount': '{account} の金額を取得しています…',
  'wallet.notEnough':
    'アカウント {account} には {network} で {amount} を支払う残高がありません。入金するかウォレットでアカウントを切り替えるか、別のお支払い方法を選んでから、もう一度お試しください。',
  'wallet.confirm': '{wallet} でお支払いを承認してください…',
  'wallet.confirmUnnamed': 'ウォレットでお支払いを承認してください…',
  'wallet.sent': '送金しました。ネットワークの確認を待っています…',
  'wallet.declinedConnect': 'ウォレットの接続が拒否されました。準備ができたらもう一度お試しください。',

  'walletError.declined':
    'ウォレットでリクエストが拒否されたため、お支払いは行われていません。準備ができたらもう一度お試しください。',
  'walletError.unknownChain':
    'ウォレットを {network} ネットワークに切り替えられませんでした。{network} をウォレットに追加して (または手動で切り替えて) から、もう一度お試しください。',
  'walletError.reverted': 'トランザクションがネットワークに拒否されました。残高を確認して、もう一度お試しください。',
  'walletError.unsupported':
    'お使いのウォレットはこのお支払い方法に対応していません。別の方法を選ぶか、スマートフォンのウォレットで QR コードを読み取ってください。',
  'walletError.provider':
    'ウォレットから問題が報告されました: {problem}。もう一度試すか、スマートフォンのウォレットで QR コードを読み取ってください。',
  'walletError.unreachable': '決済サービスに接続できませんでした。通信環境を確認して、もう一度お試しください。',
  'walletError.quoteExpired':
    '署名の前に価格の見積もりが期限切れになりました。もう一度試して新しい見積もりを取得してください。',
  'walletError.rateLimited': '短時間に試行が多すぎます。少し待ってから、もう一度お試しください。',
  'walletError.merchantNotActive':
    'このショップは現在お支払いを受け付けていないため、請求は行われていません。ショップにお問い合わせください。',
  'walletError.refused': '決済サービスがお支払いを拒否しました: {problem} もう一度試すか、別の方法を選んでください。',
  'walletError.other':
    'ウォレットで問題が発生しました。もう一度試すか、スマートフォンのウォレットで QR コードを読み取ってください。',

  'form.title': '{merchant} へのお客様情報',
  'form.titleWithErrors': 'エラー: {merchant} へのお客様情報',
  'form.heading': 'お客様情報',
  'form.lead': '{merchant} は、{amount} のお支払いの前にこれらの情報を求めています。',
  'form.errorSummary': '入力内容を確認してください',
  'form.summaryItem': '{field}: {problem}',
  'form.errorLabel': 'エラー:',
  'form.optional': '(任意)',
  'form.placeGroup': '出生地または居住地 (少なくとも一方)',
  'form.continue': '続ける',
  'form.fullName': '氏名',
  'form.fullNameHint': '本人確認書類の記載どおり',
  'form.dateOfBirth': '生年月日',
  'form.dateOfBirthHint': 'YYYY-MM-DD',
  'form.placeOfBirth': '出生地',
  'form.placeOfResidence': '居住地',
  'form.placeHint': '市区町村と国',
  'form.termsAccepted': 'このお支払いの条件に同意します',
  'form.termsAcceptedHint': 'これらの情報は、このお支払いのためにのみ販売者と共有されます',
  'form.problem.fullNameMissing': '氏名を入力してください',
  'form.problem.dateOfBirthMissing': '生年月日を入力してください',
  'form.problem.placeMissing': '出生地または居住地を入力してください',
  'form.problem.termsNotAccepted': '続けるには条件に同意してください',
  'form.problem.notADate': '実在する日付を YYYY-MM-DD の形式で入力してください',
  'form.problem.dateNotPast': '生年月日は過去の日付にしてください',
  'form.problem.tooLong': { other: '{count} 文字以内で入力してください' },
  'form.problem.invalid': 'この回答は無効です',
  'form.done.heading': '情報を受け付けました',
  'form.done.text': 'ありがとうございます。{merchant} に情報が届きました。ウォレットに戻ってお支払いください。',
  'form.expired.heading': 'このリンクは期限切れです',
  'form.expired.text': 'このお支払いのための情報入力の期限が過ぎました。',
  'form.invalid.heading': 'このリンクは無効です',
  'form.invalid.text': 'このサービスが支払い用に発行したリンクではないか、変更されています。',
  'form.notPayable.heading': 'このお支払いはもう行えません',
  'form.notPayable.text': 'このお支払いはすでに支払い待ちではないため、情報は不要です。',
  'form.unavailable.heading': '現在、情報を受け付けられません',
  'form.unavailable.text': 'このサービスは購入者の情報を保存するように設定されていません。',
  'form.startAgain': 'ウォレットに戻って、お支払いを最初からやり直してください。',
  'link.title': '{merchant} への支払い',
  'link.price': '価格',
  'link.quantity': '数量',
  'link.yourAmount': '金額（{currency}）',
  'link.amountBetween': '{minimum} から {maximum} まで。',
  'link.continue': '支払いに進む',
  'link.reference': '支払いリンク {link}',
  'link.problem.amountMissing': '金額を入力してください。',
  'link.problem.amountNotANumber': '金額を数字で入力してください（例：{example}）。',
  'link.problem.amountBelow': '金額は {minimum} 以上にしてください。',
  'link.problem.amountAbove': '金額は {maximum} 以下にしてください。',
  'link.problem.quantity': '数量は 1 から {maximum} の間で選んでください。',
  'link.problem.pageUsed': 'このページは別の金額ですでに送信されています。金額を確認して、もう一度進んでください。',
  'link.inactive.heading': 'このリンクでは支払いを受け付けていません',
  'link.inactive.text':
    '{merchant} はこの支払いリンクを停止しました。別の支払い方法を {merchant} にお問い合わせください。',
  'link.expired.heading': 'このリンクは終了しました',
  'link.expired.text':
    '{merchant} のこの支払いリンクは受付を終了しました。新しいリンクを {merchant} にご依頼ください。',
  'link.spent.heading': 'このリンクは上限に達しました',
  'link.spent.text': 'この支払いリンクは {merchant} が定めた件数の支払いを受け付けました。',
  'link.allTaken.heading': '現在すべて予約済みです',
  'link.allTaken.text':
    '他の購入者が残りを支払い中です。完了しなかった支払いの枠は解放されます。数分後にもう一度お試しください。',
  'link.tryAgain': 'もう一度試す',
  'link.notFound.title': '支払いリンクが見つかりません',
  'link.notFound.text': 'アドレスを確認するか、販売者にリンクをもう一度ご依頼ください。',
};
